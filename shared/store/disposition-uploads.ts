import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { forEachConcurrently } from '../concurrency.ts';
import { type ItemDisposition, itemDispositionSchema } from '../schemas/disposition.ts';
import { idText } from '../schemas/fields.ts';
import { documentClient, tableName } from './client.ts';
import { queryGsi1 } from './index-query.ts';
import { jobItemAttributes } from './job-items.ts';
import { uploadGsi1, uploadKeys } from './keys.ts';
import { queryAll } from './query-all.ts';
import { getRecord } from './record-once.ts';
import { GSI1, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './table-definition.ts';
import { type TransactItem, transactWrite, transactWriteIfFirstHolds } from './transact.ts';

/**
 * A dispositions CSV upload recorded as a job. The validated rows are stored first, grouped per
 * return, in chunk items; then one transaction writes the upload item (totals, progress) with the
 * upload's audit entry, which is what makes the job exist: chunks without their upload item are
 * never read and expire. The worker records chunk after chunk and counts each chunk once.
 */
export type UploadStatus = 'recording' | 'done' | 'failed';

/** One return's rows as the disposition endpoint takes them. */
export interface UploadReturn {
  returnId: string;
  itemDispositions: ItemDisposition[];
}

/** A stored chunk's returns, checked again when read back. */
const chunkReturnsSchema = z.array(
  z.object({ returnId: idText(), itemDispositions: z.array(itemDispositionSchema) }),
);

/** A return the worker could not record (the endpoint's own refusal), shown to the person. */
interface UploadFailure {
  returnId: string;
  code: string;
  message: string;
}

export interface DispositionUpload {
  merchantId: string;
  uploadId: string;
  status: UploadStatus;
  rows: number;
  returns: number;
  chunks: number;
  chunksRecorded: number;
  returnsRecorded: number;
  returnsAlreadyPresent: number;
  returnsFailed: number;
  failures: UploadFailure[];
  /** Runs of the worker on this upload so far (a crashed run is retried, up to a limit). */
  attempts: number;
  createdAt: string;
  finishedAt?: string;
  /** Why the job stopped before recording every chunk (failed only). */
  reason?: string;
}

export interface UploadChunk {
  index: number;
  returns: UploadReturn[];
}

/** A chunk's JSON stays under this, far below DynamoDB's 400 KB item limit. */
const MAX_CHUNK_BYTES = 100_000;
/** Uploads and their chunks are kept 30 days: long enough to look a job up again. */
const RETENTION_SECONDS = 30 * 24 * 3600;
/** Chunk items written at once. */
const WRITE_CONCURRENCY = 8;
/** A failed return's details kept per chunk; the count is always exact. */
const FAILURES_KEPT_PER_CHUNK = 10;

const retainUntil = (now: number) => Math.floor(now / 1000) + RETENTION_SECONDS;

/** Groups the returns into chunks in file order, each under MAX_CHUNK_BYTES (a return is never split). */
export function chunkReturns(returns: readonly UploadReturn[]): UploadChunk[] {
  const chunks: UploadChunk[] = [];
  let current: UploadReturn[] = [];
  let bytes = 0;
  for (const entry of returns) {
    const size = Buffer.byteLength(JSON.stringify(entry));
    if (current.length > 0 && bytes + size > MAX_CHUNK_BYTES) {
      chunks.push({ index: chunks.length, returns: current });
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) chunks.push({ index: chunks.length, returns: current });
  return chunks;
}

/** Matches the upload item itself: its entity marks it for the worker's start (lib/upload-worker.ts). */
export const DISPOSITION_UPLOAD_ENTITY = 'dispositionUpload';

/**
 * Stores a validated upload: its chunks, then the upload item and `audit` in one transaction. If
 * anything fails before that transaction, no job exists (the chunks written expire unread).
 */
export async function createUpload(
  upload: Pick<DispositionUpload, 'merchantId' | 'uploadId' | 'rows' | 'returns'>,
  chunks: readonly UploadChunk[],
  audit: TransactItem,
  now: number,
): Promise<DispositionUpload> {
  const { merchantId, uploadId } = upload;
  const expiresAt = retainUntil(now);
  await forEachConcurrently(chunks, WRITE_CONCURRENCY, async (chunk) => {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...uploadKeys.chunk(merchantId, uploadId, chunk.index),
          entity: 'dispositionUploadChunk',
          merchantId,
          uploadId,
          index: chunk.index,
          // One JSON string, not nested maps: far cheaper to write and read for rows nobody queries.
          returns: JSON.stringify(chunk.returns),
          [TTL_ATTRIBUTE]: expiresAt,
        },
      }),
    );
  });
  const createdAt = new Date(now).toISOString();
  const record: DispositionUpload = {
    ...upload,
    status: 'recording',
    chunks: chunks.length,
    chunksRecorded: 0,
    returnsRecorded: 0,
    returnsAlreadyPresent: 0,
    returnsFailed: 0,
    failures: [],
    attempts: 0,
    createdAt,
  };
  await transactWrite([
    {
      Put: {
        TableName: tableName,
        Item: {
          ...uploadKeys.upload(merchantId, uploadId),
          ...uploadGsi1.recording(createdAt, uploadId),
          // The jobs' pipe and the worker's rule pick new items of this entity.
          ...jobItemAttributes(DISPOSITION_UPLOAD_ENTITY, uploadId),
          ...record,
          [TTL_ATTRIBUTE]: expiresAt,
        },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      },
    },
    audit,
  ]);
  return record;
}

export async function getUpload(
  merchantId: string,
  uploadId: string,
): Promise<DispositionUpload | undefined> {
  const item = await getRecord<Record<string, unknown>>(uploadKeys.upload(merchantId, uploadId));
  return item ? toUpload(item) : undefined;
}

/** The chunks of an upload not yet recorded, in order. */
export async function chunksToRecord(merchantId: string, uploadId: string): Promise<UploadChunk[]> {
  const chunks: UploadChunk[] = [];
  await queryAll(
    {
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
      FilterExpression: 'attribute_not_exists(recordedAt)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: {
        ':pk': uploadKeys.upload(merchantId, uploadId)[PARTITION_KEY],
        ':prefix': uploadKeys.chunkPrefix,
      },
      ConsistentRead: true,
    },
    (item) =>
      chunks.push({
        index: Number(item.index),
        returns: chunkReturnsSchema.parse(JSON.parse(String(item.returns))),
      }) > 0,
  );
  return chunks;
}

/** Counts a worker run; the upload as it is now (attempts included). */
export async function startAttempt(merchantId: string, uploadId: string): Promise<DispositionUpload> {
  const { Attributes } = await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: uploadKeys.upload(merchantId, uploadId),
      UpdateExpression: 'ADD attempts :one',
      ConditionExpression: 'attribute_exists(#pk)',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return toUpload(Attributes!);
}

export interface ChunkOutcome {
  recorded: number;
  alreadyPresent: number;
  failures: UploadFailure[];
}

/**
 * Marks a chunk recorded and adds its counts to the upload's progress, in one transaction, so a
 * chunk retried after a crash is counted once. False when it was already counted.
 */
export async function recordChunkDone(
  merchantId: string,
  uploadId: string,
  index: number,
  outcome: ChunkOutcome,
  now: number,
): Promise<boolean> {
  const failures = outcome.failures.slice(0, FAILURES_KEPT_PER_CHUNK);
  return transactWriteIfFirstHolds([
    {
      Update: {
        TableName: tableName,
        Key: uploadKeys.chunk(merchantId, uploadId, index),
        UpdateExpression: 'SET recordedAt = :now',
        ConditionExpression: 'attribute_exists(#pk) AND attribute_not_exists(recordedAt)',
        ExpressionAttributeNames: { '#pk': PARTITION_KEY },
        ExpressionAttributeValues: { ':now': new Date(now).toISOString() },
      },
    },
    {
      Update: {
        TableName: tableName,
        Key: uploadKeys.upload(merchantId, uploadId),
        UpdateExpression:
          'ADD chunksRecorded :one, returnsRecorded :recorded, returnsAlreadyPresent :present, returnsFailed :failed' +
          (failures.length > 0 ? ' SET failures = list_append(failures, :failures)' : ''),
        ExpressionAttributeValues: {
          ':one': 1,
          ':recorded': outcome.recorded,
          ':present': outcome.alreadyPresent,
          ':failed': outcome.failures.length,
          ...(failures.length > 0 ? { ':failures': failures } : {}),
        },
      },
    },
  ]);
}

/**
 * Ends the job (done, or failed with a reason) and takes it off the recording queue; only a job
 * still recording ends, so two workers finishing together end it once.
 */
export async function finishUpload(
  merchantId: string,
  uploadId: string,
  status: Exclude<UploadStatus, 'recording'>,
  now: number,
  reason?: string,
): Promise<void> {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: uploadKeys.upload(merchantId, uploadId),
        UpdateExpression: `SET #status = :status, finishedAt = :now${reason ? ', #reason = :reason' : ''} REMOVE #gpk, #gsk`,
        ConditionExpression: '#status = :recording',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#gpk': GSI1.partitionKey,
          '#gsk': GSI1.sortKey,
          ...(reason ? { '#reason': 'reason' } : {}),
        },
        ExpressionAttributeValues: {
          ':status': status,
          ':now': new Date(now).toISOString(),
          ':recording': 'recording',
          ...(reason ? { ':reason': reason } : {}),
        },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/** Uploads still recording, oldest first (the local poller's queue); one merchant's when given. */
export async function recordingUploads(limit: number, merchantId?: string): Promise<DispositionUpload[]> {
  const { results } = await queryGsi1<DispositionUpload>(
    [uploadGsi1.recordingPartition],
    { KeyConditionExpression: '#pk = :pk', ExpressionAttributeNames: { '#pk': GSI1.partitionKey } },
    (item) => (merchantId === undefined || item.merchantId === merchantId ? toUpload(item) : undefined),
    limit,
    { oldestFirst: true },
  );
  return results;
}

function toUpload(item: Record<string, unknown>): DispositionUpload {
  return {
    merchantId: item.merchantId as string,
    uploadId: item.uploadId as string,
    status: item.status as UploadStatus,
    rows: Number(item.rows),
    returns: Number(item.returns),
    chunks: Number(item.chunks),
    chunksRecorded: Number(item.chunksRecorded ?? 0),
    returnsRecorded: Number(item.returnsRecorded ?? 0),
    returnsAlreadyPresent: Number(item.returnsAlreadyPresent ?? 0),
    returnsFailed: Number(item.returnsFailed ?? 0),
    failures: (item.failures as UploadFailure[] | undefined) ?? [],
    attempts: Number(item.attempts ?? 0),
    createdAt: item.createdAt as string,
    ...(item.finishedAt ? { finishedAt: item.finishedAt as string } : {}),
    ...(item.reason ? { reason: item.reason as string } : {}),
  };
}
