import { z } from 'zod';
import { EVENT_TYPES } from '../shared/contract/endpoints.ts';
import { putJson } from '../shared/lake/s3-json.ts';
import { learningItems } from '../shared/use-cases/learning-run.ts';

/**
 * The learning state machine's first step: the run's items (every merchant and event type nightly,
 * or the one asked for), written to the work bucket for the Distributed Map to read.
 */
const input = z.strictObject({
  runId: z.string().min(1).max(80),
  /** The execution's input: `{}` nightly, or one merchant (and type) on demand. */
  request: z.strictObject({
    merchantId: z.string().min(1).max(64).optional(),
    eventType: z.enum(EVENT_TYPES).optional(),
    promote: z.boolean().optional(),
  }),
});

export async function handler(event: unknown) {
  const { runId, request } = input.parse(event);
  const items = await learningItems(request);
  const ref = { bucket: String(process.env.WORK_BUCKET), key: `learning/${runId}/items.json` };
  await putJson(ref, items);
  // The run's clock: every item trains as of this instant.
  return { ...ref, count: items.length, now: Date.now() };
}
