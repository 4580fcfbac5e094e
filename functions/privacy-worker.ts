import type { DynamoDBStreamEvent } from 'aws-lambda';
import { metrics } from '../shared/observability.ts';
import { runPrivacyWorker } from '../shared/use-cases/privacy-requests.ts';

/**
 * The privacy worker (docs/privacy.md): a pending erase or export request on the table's stream (a
 * new one, or one whose failed run was just counted) runs every pending request, as `npm start`'s
 * poller does locally. A run that fails leaves its request pending with one more attempt counted,
 * which brings it back here until it finishes or gives up.
 */
export async function handler(_event: DynamoDBStreamEvent): Promise<void> {
  try {
    await runPrivacyWorker();
  } finally {
    metrics.publishStoredMetrics();
  }
}
