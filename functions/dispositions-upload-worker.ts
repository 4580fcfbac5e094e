import type { DynamoDBStreamEvent } from 'aws-lambda';
import { metrics } from '../shared/observability.ts';
import { handleUploadStream } from '../shared/use-cases/record-upload.ts';

/** The dispositions upload worker: new upload items from the table's stream, recorded chunk by chunk. */
export async function handler(event: DynamoDBStreamEvent) {
  try {
    return await handleUploadStream(event);
  } finally {
    metrics.publishStoredMetrics();
  }
}
