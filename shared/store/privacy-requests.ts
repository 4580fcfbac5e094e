import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { retainUntil } from '../retention.ts';
import type { PrivacyCounts, PrivacyProgress, PrivacyRequestType } from '../schemas/privacy.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { documentClient, tableName } from './client.ts';
import { privacyGsi1, privacyKeys, type TableKey } from './keys.ts';
import { type Page, queryPage, wholePartition } from './pages.ts';
import { firstInGsi1Partition } from './query-all.ts';
import { getRecord } from './record-once.ts';
import type { FoundKeys, SubjectSearch } from './subject-records.ts';
import { GSI1, TTL_ATTRIBUTE } from './table-definition.ts';
import { type TransactItem, transactWrite } from './transact.ts';

/**
 * A privacy request as stored: the subject's identities as digests (`kind#digest`), never the values
 * it was named by, and what the worker did. It waits in GSI1's pending queue until it ends, and a
 * small item lists it in its merchant's partition of requests by time (privacyKeys.listed). An
 * erasure ends with a tombstone beside it (the same digests), listed for the restore runbook.
 */
export interface PrivacyRequest {
  merchantId: string;
  requestId: string;
  type: PrivacyRequestType;
  status: 'pending' | 'done' | 'failed';
  identities: string[];
  /** The console key that asked: the audit entries of the outcome name it. */
  requestedBy: { keyId: string; keyName: string };
  createdAt: string;
  finishedAt?: string;
  counts?: PrivacyCounts;
  /** Export only: the document's object key in the exports bucket, and when its link expires. */
  exportKey?: string;
  exportExpiresAt?: string;
  reason?: string;
  /** How far the worker's slices have gone (shown on GET while it runs). */
  progress?: PrivacyProgress;
  /** Where the next slice resumes the search for the subject's records, and what it found so far. */
  scan?: SubjectSearch;
  found?: FoundKeys;
  /**
   * Erase only, once the table's records are erased: the passes over the lake still to run, what
   * they match its rows by (the records' ids: they leave the request with the last pass), and when
   * the next is due. The request waits for it in GSI1's lake queue (privacyGsi1.lake).
   */
  lakeErasure?: LakeErasureState;
}

export interface LakeErasureState {
  names: string[];
  /** Passes run so far. */
  passes: number;
  dueAt: string;
}

export interface Tombstone {
  merchantId: string;
  requestId: string;
  identities: string[];
  createdAt: string;
}

export async function createPrivacyRequest(request: PrivacyRequest, audit: TransactItem, now: number) {
  await transactWrite([
    {
      Put: {
        TableName: tableName,
        Item: {
          ...privacyKeys.request(request.merchantId, request.requestId),
          ...privacyGsi1.pending(request.createdAt, request.merchantId, request.requestId),
          entity: 'privacyRequest',
          ...request,
          [TTL_ATTRIBUTE]: retainUntil('privacyRequests', now),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...privacyKeys.listed(request.merchantId, request.createdAt, request.requestId),
          entity: 'privacyRequestListed',
          requestId: request.requestId,
          [TTL_ATTRIBUTE]: retainUntil('privacyRequests', now),
        },
      },
    },
    audit,
  ]);
}

export const getPrivacyRequest = (merchantId: string, requestId: string) =>
  getRecord<PrivacyRequest>(privacyKeys.request(merchantId, requestId));

/** The merchant's requests, newest first: a page of the listing, then the requests it names. */
export async function listPrivacyRequests(
  merchantId: string,
  cursor: string | undefined,
  limit: number,
): Promise<Page<PrivacyRequest>> {
  const listed = await queryPage(
    {
      ...wholePartition(privacyKeys.listingPartition(merchantId)),
      oldestFirst: false,
      cursor,
      limit,
    },
    (item) => String(item.requestId),
  );
  const requestKeys = listed.items.map((requestId) => privacyKeys.request(merchantId, requestId));
  const found = await batchGetItems(requestKeys);
  const items = requestKeys.flatMap((key) => {
    const item = found.get(keyString(key));
    return item ? [item as unknown as PrivacyRequest] : [];
  });
  return { ...listed, items };
}

/** Requests waiting for the worker, oldest first. */
export const pendingPrivacyRequests = (limit: number) =>
  firstInGsi1Partition<PrivacyRequest>(privacyGsi1.pendingPartition, limit);

/**
 * One slice's progress, on the request as it was read (`progress.slices`): a repeated or stale
 * slice changes nothing. The write keeps the request pending, so the table's stream wakes the
 * worker again for the next slice (lib/privacy-stack.ts). Returns whether it was recorded.
 */
export async function recordPrivacySlice(
  request: PrivacyRequest,
  slice: { search: SubjectSearch; found: FoundKeys; listingsRead: number; listings: number },
  now: number,
): Promise<PrivacyRequest | undefined> {
  const found: FoundKeys = { ...request.found };
  for (const [kind, list] of Object.entries(slice.found) as [keyof FoundKeys, TableKey[]][]) {
    found[kind] = [...(found[kind] ?? []), ...list];
  }
  const progress: PrivacyProgress = {
    step: slice.search.step,
    listingsRead: slice.listingsRead,
    listings: slice.listings,
    eventsFound: found.events?.length ?? 0,
    slices: (request.progress?.slices ?? 0) + 1,
    updatedAt: new Date(now).toISOString(),
  };
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: privacyKeys.request(request.merchantId, request.requestId),
        UpdateExpression: 'SET #progress = :progress, #scan = :search, #found = :found',
        // The slice count it read: a repeated or stale slice writes nothing.
        ConditionExpression:
          '#status = :pending AND (attribute_not_exists(#progress) OR #progress.#slices = :read)',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#progress': 'progress',
          '#slices': 'slices',
          '#scan': 'scan',
          '#found': 'found',
        },
        ExpressionAttributeValues: {
          ':progress': progress,
          ':search': slice.search,
          ':found': found,
          ':pending': 'pending',
          ':read': request.progress?.slices ?? 0,
        },
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
  return { ...request, progress, scan: slice.search, found };
}

/**
 * The request's outcome; it leaves the pending queue. An erasure's tombstone is written with it, and
 * an erasure with lake passes to run joins the lake queue instead (privacyGsi1.lake).
 */
export async function finishPrivacyRequest(
  request: PrivacyRequest,
  outcome: Pick<
    PrivacyRequest,
    'status' | 'counts' | 'exportKey' | 'exportExpiresAt' | 'reason' | 'lakeErasure'
  >,
  audit: TransactItem,
  now: number,
): Promise<void> {
  const finishedAt = new Date(now).toISOString();
  const lakeQueue = outcome.lakeErasure
    ? privacyGsi1.lake(outcome.lakeErasure.dueAt, request.merchantId, request.requestId)
    : {};
  const fields = Object.entries({ ...outcome, ...lakeQueue, finishedAt }).filter(
    ([, value]) => value !== undefined,
  );
  const update: TransactItem = {
    Update: {
      TableName: tableName,
      Key: privacyKeys.request(request.merchantId, request.requestId),
      // The search's cursor and event keys go: an outcome keeps counts, never which records.
      UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :f${i}`).join(', ')} REMOVE ${outcome.lakeErasure ? '' : '#gpk, #gsk, '}#scan, #found`,
      ExpressionAttributeNames: {
        ...Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
        ...(outcome.lakeErasure ? {} : { '#gpk': GSI1.partitionKey, '#gsk': GSI1.sortKey }),
        '#scan': 'scan',
        '#found': 'found',
      },
      ExpressionAttributeValues: Object.fromEntries(fields.map(([, value], i) => [`:f${i}`, value])),
    },
  };
  const tombstone: Tombstone = {
    merchantId: request.merchantId,
    requestId: request.requestId,
    identities: request.identities,
    createdAt: finishedAt,
  };
  const erased = request.type === 'erase' && outcome.status === 'done';
  await transactWrite([
    update,
    audit,
    ...(erased
      ? [
          {
            Put: {
              TableName: tableName,
              Item: {
                ...privacyKeys.tombstone(request.merchantId, request.requestId),
                ...privacyGsi1.tombstone(finishedAt, request.merchantId, request.requestId),
                entity: 'privacyTombstone',
                ...tombstone,
                [TTL_ATTRIBUTE]: retainUntil('tombstones', now),
              },
            },
          },
        ]
      : []),
  ]);
}

/** Erasures whose next lake pass is due by `now`, the most overdue first. */
export async function dueLakeErasures(now: number, limit: number): Promise<PrivacyRequest[]> {
  const { Items } = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: GSI1.name,
      KeyConditionExpression: '#pk = :pk AND #sk <= :due',
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey, '#sk': GSI1.sortKey },
      // Sort keys start with the due time: any key of a time up to now sorts before `<now>~`.
      ExpressionAttributeValues: {
        ':pk': privacyGsi1.lakePartition,
        ':due': `${new Date(now).toISOString()}~`,
      },
      Limit: limit,
    }),
  );
  return (Items ?? []) as PrivacyRequest[];
}

/**
 * One lake pass's outcome, on the request as it was read (its pass count): a repeated or concurrent
 * pass adds nothing. The rows it removed add to `counts.lakeRows`; with `nextDueAt` the request waits
 * for another pass, without it the erasure's names and its place in the queue go. Returns whether it
 * was recorded.
 */
export async function recordLakePass(
  request: PrivacyRequest & { lakeErasure: LakeErasureState },
  removedRows: number,
  nextDueAt: string | undefined,
): Promise<boolean> {
  const next = nextDueAt
    ? {
        set: ', #lake.#passes = :passes, #lake.#due = :due, #gsk = :gsk',
        remove: '',
        values: {
          ':passes': request.lakeErasure.passes + 1,
          ':due': nextDueAt,
          ':gsk': privacyGsi1.lake(nextDueAt, request.merchantId, request.requestId)[GSI1.sortKey],
        },
      }
    : { set: '', remove: ' REMOVE #lake, #gpk, #gsk', values: {} };
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: privacyKeys.request(request.merchantId, request.requestId),
        UpdateExpression: `SET #counts.#lakeRows = if_not_exists(#counts.#lakeRows, :zero) + :removed${next.set}${next.remove}`,
        ConditionExpression: '#lake.#passes = :read',
        ExpressionAttributeNames: {
          '#counts': 'counts',
          '#lakeRows': 'lakeRows',
          '#lake': 'lakeErasure',
          '#passes': 'passes',
          '#gsk': GSI1.sortKey,
          ...(nextDueAt ? { '#due': 'dueAt' } : { '#gpk': GSI1.partitionKey }),
        },
        ExpressionAttributeValues: {
          ':zero': 0,
          ':removed': removedRows,
          ':read': request.lakeErasure.passes,
          ...next.values,
        },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/**
 * Every tombstone of every merchant, oldest first: what a restored table must erase again. `fromTable`
 * reads them from another table (the one in use before the restore); they are copied here too, so
 * the restored table keeps them.
 */
export const listTombstones = (fromTable = tableName) =>
  listPrivacyRecords<Tombstone>(privacyGsi1.tombstonesPartition, fromTable);

/** An offboarded merchant (shared/store/offboardings.ts): a restore deletes it again. */
export interface OffboardedMerchant {
  offboardedMerchantId: string;
}

export const listOffboarded = (fromTable = tableName) =>
  listPrivacyRecords<OffboardedMerchant>(privacyGsi1.offboardedPartition, fromTable);

async function listPrivacyRecords<T>(partition: string, fromTable: string): Promise<T[]> {
  const found: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: fromTable,
        IndexName: GSI1.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
        ExpressionAttributeValues: { ':pk': partition },
        ExclusiveStartKey: startKey,
      }),
    );
    found.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  if (fromTable !== tableName) {
    for (const item of found) await documentClient.send(new PutCommand({ TableName: tableName, Item: item }));
  }
  return found as T[];
}

/** Counts one more attempt of a request whose run failed (it stays queued until it gives up). */
export async function countPrivacyAttempt(request: PrivacyRequest): Promise<number> {
  const { Attributes } = await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: privacyKeys.request(request.merchantId, request.requestId),
      UpdateExpression: 'ADD attempts :one',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.attempts ?? 1);
}
