import { z } from 'zod';
import { EVENT_TYPES } from '../shared/contract/endpoints.ts';
import { getJson } from '../shared/lake/s3-json.ts';
import type { TrainingSet } from '../shared/lake/training-set.ts';
import { logger } from '../shared/observability.ts';
import { fitLearningItem } from '../shared/use-cases/learning-run.ts';

/** An item's second step: fit, evaluate, promote and refresh the guard on the set the query left. */
const input = z.object({
  now: z.number().int(),
  item: z.object({
    merchantId: z.string().min(1).max(64),
    eventType: z.enum(EVENT_TYPES),
    promote: z.boolean().optional(),
  }),
  set: z.object({ bucket: z.string().min(1), key: z.string().min(1) }),
});

export async function handler(event: unknown) {
  const { now, item, set } = input.parse(event);
  const result = await fitLearningItem(item, await getJson<TrainingSet>(set), now);
  logger.info('model training', { ...result });
  return result;
}
