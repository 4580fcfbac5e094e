import type { DynamoDBStreamEvent, ScheduledEvent } from 'aws-lambda';
import { athenaLakeEraser } from '../shared/lake/athena-lake-erasure.ts';
import { metrics } from '../shared/observability.ts';
import { handlePrivacyStream, runLakeErasures } from '../shared/use-cases/privacy-requests.ts';

/**
 * The privacy worker (docs/privacy.md, lib/privacy-stack.ts): a pending erase or export request on
 * the table's stream (new, advanced by a slice, or with a failed attempt counted) gets its next slice,
 * and a done erasure its first pass over the lake; a running offboarding its next slice. Its
 * schedule runs the lake passes due since.
 */
const lake = athenaLakeEraser({
  bucket: String(process.env.LAKE_BUCKET),
  database: String(process.env.LAKE_DATABASE),
  workGroup: String(process.env.LAKE_WORKGROUP),
});
const offboardingLake = { bucket: String(process.env.LAKE_BUCKET) };

export async function handler(event: DynamoDBStreamEvent | ScheduledEvent): Promise<void> {
  try {
    if ('Records' in event) await handlePrivacyStream(event.Records, lake, offboardingLake);
    else await runLakeErasures(lake);
  } finally {
    metrics.publishStoredMetrics();
  }
}
