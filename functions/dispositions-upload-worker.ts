import { z } from 'zod';
import { logger, metrics } from '../shared/observability.ts';
import { recordUpload } from '../shared/use-cases/record-upload.ts';

/** What the worker's rule on the jobs' bus sends (lib/upload-worker.ts): the new upload's ids. */
const uploadEvent = z.object({
  merchantId: z.string().min(1).max(64),
  uploadId: z.string().min(1).max(64),
});

/** An invocation the worker cannot read: thrown, so Lambda keeps it in the dead-letter queue (alarmed). */
export class BadUploadEventError extends Error {
  override name = 'BadUploadEventError';
}

/**
 * The dispositions upload worker: a new upload item's ids, from its rule on the jobs' bus, recorded
 * chunk by chunk. A run that throws is retried by Lambda, then kept in the dead-letter queue.
 */
export async function handler(event: unknown) {
  try {
    const parsed = uploadEvent.safeParse(event);
    if (!parsed.success) {
      logger.error('Upload event not understood; it goes to the dead-letter queue', {
        issues: parsed.error.issues,
      });
      throw new BadUploadEventError(`not an upload event: ${parsed.error.message}`);
    }
    const { merchantId, uploadId } = parsed.data;
    try {
      const upload = await recordUpload(merchantId, uploadId);
      return { status: upload?.status ?? 'not-found' };
    } catch (error) {
      logger.error('Upload recording stopped; Lambda will run it again', { merchantId, uploadId, error });
      throw error;
    }
  } finally {
    metrics.publishStoredMetrics();
  }
}
