import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { metrics } from '../shared/observability.ts';
import { scheduleOnRetryQueue } from '../shared/queue/retry-queue.ts';
import { handleOutboxStream, handleRetryQueue } from '../shared/use-cases/webhook-worker-events.ts';

/** The webhook worker: new outbox items from the table's stream, due retries from the delay queue. */
export async function handler(event: DynamoDBStreamEvent | SQSEvent) {
  const deps = { scheduleRetry: scheduleOnRetryQueue };
  try {
    return event.Records[0]?.eventSource === 'aws:sqs'
      ? await handleRetryQueue(event as SQSEvent, deps)
      : await handleOutboxStream(event as DynamoDBStreamEvent, deps);
  } finally {
    metrics.publishStoredMetrics();
  }
}
