import type { Context } from 'aws-lambda';
import { importJobRequestSchema, runImportJob } from '../shared/history-import/import-job.ts';
import { logger } from '../shared/observability.ts';
import { bucketClient } from '../shared/s3-client.ts';

/**
 * The history import job: invoked on demand with `{ "merchantId", "key", "dryRun"?, "resumeFrom"?,
 * "concurrency"? }` (`aws lambda invoke`), it imports the NDJSON object `key` of the imports bucket
 * (IMPORT_BUCKET) exactly as `admin import` imports a file, and answers the summary. Bad lines, an
 * unknown merchant or an unreadable object fail the invocation and write nothing.
 */
const client = bucketClient();

/**
 * No event starts in the last minute of the function's time: those in flight finish and the summary
 * (with `resumeFrom`) is returned instead of the run being cut off by the timeout.
 */
const STOP_BEFORE_TIMEOUT_MS = 60_000;

export async function handler(event: unknown, context: Pick<Context, 'getRemainingTimeInMillis'>) {
  const request = importJobRequestSchema.parse(event);
  const bucket = process.env.IMPORT_BUCKET;
  if (!bucket) throw new Error('IMPORT_BUCKET is not set');
  try {
    const result = await runImportJob(request, {
      client,
      bucket,
      keepGoing: () => context.getRemainingTimeInMillis() > STOP_BEFORE_TIMEOUT_MS,
    });
    logger.info('history import', { ...result });
    return result;
  } catch (error) {
    logger.error('history import failed', { ...request, error });
    throw error;
  }
}
