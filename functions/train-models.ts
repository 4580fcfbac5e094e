import { z } from 'zod';
import { EVENT_TYPES } from '../shared/contract/endpoints.ts';
import { logger } from '../shared/observability.ts';
import { runTrainingJob } from '../shared/use-cases/training-job.ts';

/**
 * The training function: invoked nightly by EventBridge Scheduler with `{}` (every merchant) and on
 * demand with `{ "merchantId", "eventType"?, "promote"? }` (e.g. `aws lambda invoke`). Answers a
 * summary per merchant and event type; an invocation fails only on bad input, an unknown merchant,
 * or when some training failed for a reason other than missing labels (so the error alarm sees it).
 */
const request = z.strictObject({
  merchantId: z.string().min(1).max(64).optional(),
  eventType: z.enum(EVENT_TYPES).optional(),
  promote: z.boolean().optional(),
});

export async function handler(event: unknown) {
  const parsed = request.parse(event ?? {});
  const results = await runTrainingJob(parsed, Date.now());
  for (const result of results) logger.info('model training', { ...result });
  const failed = results.filter((r) => r.outcome === 'failed');
  const summary = {
    trained: results.filter((r) => r.outcome === 'trained').length,
    promoted: results.filter((r) => r.promoted).length,
    notTrained: results.filter((r) => r.outcome === 'not_trained').length,
    failed: failed.length,
    results,
  };
  if (failed.length > 0) {
    logger.error('model training failed', { failed });
    throw new Error(`${failed.length} of ${results.length} trainings failed`);
  }
  return summary;
}
