import type { Context } from 'aws-lambda';
import { importSliceRequestSchema, runImportSlice } from '../shared/history-import/import-job.ts';
import { logger } from '../shared/observability.ts';
import { bucketClient } from '../shared/s3-client.ts';

/**
 * One slice of the history import workflow (lib/import-job.ts): invoked by the state machine with
 * `{ "merchantId", "key", "dryRun"?, "progress"? }`, it validates or imports the NDJSON object `key`
 * of the imports bucket (IMPORT_BUCKET) from where `progress` stands until a minute before its
 * time limit, records the import's status, and answers where it stands now. An unknown merchant or
 * an unreadable object fails the invocation; bad lines end the import refused, with nothing written.
 */
const client = bucketClient();

/**
 * No event starts in the last minute of the function's time: those in flight finish and the slice
 * answers where it stopped instead of being cut off by the timeout.
 */
const STOP_BEFORE_TIMEOUT_MS = 60_000;

export async function handler(event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) {
  const request = importSliceRequestSchema.parse(event);
  const bucket = process.env.IMPORT_BUCKET;
  if (!bucket) throw new Error('IMPORT_BUCKET is not set');
  try {
    const result = await runImportSlice(request, {
      client,
      bucket,
      keepGoing: () => context.getRemainingTimeInMillis() > STOP_BEFORE_TIMEOUT_MS,
    });
    logger.info('history import slice', {
      merchantId: result.merchantId,
      key: result.key,
      ...result.progress,
    });
    return result;
  } catch (error) {
    logger.error('history import slice failed', { merchantId: request.merchantId, key: request.key, error });
    throw error;
  }
}
