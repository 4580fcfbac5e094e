import { forEachConcurrently } from '../concurrency.ts';
import { ApiError } from '../errors.ts';
import { logger } from '../observability.ts';
import { plural } from '../plural.ts';
import {
  type ChunkOutcome,
  chunksToRecord,
  type DispositionUpload,
  finishUpload,
  getUpload,
  recordChunkDone,
  recordingUploads,
  startAttempt,
  type UploadChunk,
} from '../store/disposition-uploads.ts';
import { getMerchant } from '../store/merchants.ts';
import { recordDispositions } from './record-dispositions.ts';

/**
 * The upload worker: records a validated dispositions upload chunk by chunk through the disposition
 * endpoint's own use case. The same code runs in the AWS worker Lambda (invoked from the jobs' bus)
 * and in `npm start` (polling the uploads still recording). A run that dies is run again: chunks
 * already counted are skipped, and a chunk started twice records nothing twice (dispositions are
 * idempotent per return); returns its first run recorded then count as already present.
 */

/** Returns recorded at once: DynamoDB takes it, a Lambda's sockets too. */
export const RECORD_CONCURRENCY = 16;
/**
 * Runs on one upload before it is given up as failed (a run killed mid-way counts): in AWS Lambda
 * retries a failed run at most twice, and the run after the last attempt must be offered to mark it.
 */
export const MAX_UPLOAD_ATTEMPTS = 2;
const POLL_BATCH = 10;

/** Records what is left of an upload and ends it; undefined when no such upload exists. */
export async function recordUpload(
  merchantId: string,
  uploadId: string,
): Promise<DispositionUpload | undefined> {
  const upload = await startAttemptIfAny(merchantId, uploadId);
  if (upload?.status !== 'recording') return upload;
  if (upload.attempts > MAX_UPLOAD_ATTEMPTS) {
    await finishUpload(
      merchantId,
      uploadId,
      'failed',
      Date.now(),
      `Recording stopped ${MAX_UPLOAD_ATTEMPTS} times; ${upload.chunksRecorded} of ${upload.chunks} parts were recorded.`,
    );
    return getUpload(merchantId, uploadId);
  }
  // A network member's uploaded verdicts confirm abuse to the network as its API calls do.
  const network = (await getMerchant(merchantId))?.network?.enabled === true;
  for (const chunk of await chunksToRecord(merchantId, uploadId)) {
    await recordChunkDone(
      merchantId,
      uploadId,
      chunk.index,
      await recordChunk(merchantId, chunk, network),
      Date.now(),
    );
  }
  const recorded = (await getUpload(merchantId, uploadId))!;
  if (recorded.chunksRecorded >= recorded.chunks) {
    const failed = recorded.returnsFailed > 0;
    await finishUpload(
      merchantId,
      uploadId,
      failed ? 'failed' : 'done',
      Date.now(),
      failed
        ? `${plural(recorded.returnsFailed, 'return')} could not be recorded; the others were.`
        : undefined,
    );
  }
  return getUpload(merchantId, uploadId);
}

/** One pass of the local poller: records every upload still recording (one merchant's when given). */
export async function runUploadWorker(options: { merchantId?: string } = {}): Promise<DispositionUpload[]> {
  const finished: DispositionUpload[] = [];
  for (const { merchantId, uploadId } of await recordingUploads(POLL_BATCH, options.merchantId)) {
    const upload = await recordUpload(merchantId, uploadId);
    if (upload) finished.push(upload);
  }
  return finished;
}

async function startAttemptIfAny(merchantId: string, uploadId: string) {
  try {
    return await startAttempt(merchantId, uploadId);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

/**
 * Each return of the chunk through the disposition use case. A refusal of the endpoint's (a 4xx,
 * e.g. dispositions over the stored size limit) fails that return alone; anything else (the store
 * unavailable) stops the run, to be run again.
 */
async function recordChunk(merchantId: string, chunk: UploadChunk, network: boolean): Promise<ChunkOutcome> {
  const outcome: ChunkOutcome = { recorded: 0, alreadyPresent: 0, failures: [] };
  await forEachConcurrently(chunk.returns, RECORD_CONCURRENCY, async ({ returnId, itemDispositions }) => {
    try {
      const answer = await recordDispositions({
        endpoint: 'disposition',
        merchantId,
        network,
        body: { itemDispositions },
        pathParameters: { 'return-id': returnId },
      });
      if (answer.replayed) outcome.alreadyPresent++;
      else outcome.recorded++;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      logger.warn('Upload return refused', { merchantId, returnId, code: error.code });
      outcome.failures.push({ returnId, code: error.code, message: error.message });
    }
  });
  return outcome;
}
