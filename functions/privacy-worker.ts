import type { DynamoDBStreamEvent } from 'aws-lambda';
import { metrics } from '../shared/observability.ts';
import { handlePrivacyStream } from '../shared/use-cases/privacy-requests.ts';

/**
 * The privacy worker (docs/privacy.md, lib/privacy-stack.ts): a pending erase or export request on
 * the table's stream (new, advanced by a slice, or with a failed attempt counted) gets its next slice.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<void> {
  try {
    await handlePrivacyStream(event.Records);
  } finally {
    metrics.publishStoredMetrics();
  }
}
