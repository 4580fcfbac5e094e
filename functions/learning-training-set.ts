import { z } from 'zod';
import { EVENT_TYPES } from '../shared/contract/endpoints.ts';
import { athenaRunner } from '../shared/lake/athena-runner.ts';
import { putJson } from '../shared/lake/s3-json.ts';
import { readTrainingSetFor } from '../shared/use-cases/train-merchant-model.ts';

/** An item's first step: its training set from the lake (Athena), left in the work bucket for the fit. */
const input = z.object({
  runId: z.string().min(1),
  now: z.number().int(),
  item: z.object({ merchantId: z.string().min(1).max(64), eventType: z.enum(EVENT_TYPES) }),
});

const lake = athenaRunner({
  workGroup: String(process.env.LAKE_WORKGROUP),
  database: String(process.env.LAKE_DATABASE),
});

export async function handler(event: unknown) {
  const { runId, now, item } = input.parse(event);
  const set = await readTrainingSetFor(lake, { ...item, now });
  const ref = {
    bucket: String(process.env.WORK_BUCKET),
    key: `learning/${runId}/sets/${item.merchantId}/${item.eventType}.json`,
  };
  await putJson(ref, set);
  return { ...ref, partsInWindow: set.partsInWindow, negativeSamplingRate: set.negativeSamplingRate };
}
