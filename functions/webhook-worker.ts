import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { metrics } from '../shared/observability.ts';
import { scheduleOnRetryQueue } from '../shared/queue/retry-queue.ts';
import { NETWORK_QUEUED_ATTRIBUTE } from '../shared/store/network-items.ts';
import { handleNetworkStream } from '../shared/use-cases/network-worker.ts';
import { handleOutboxStream, handleRetryQueue } from '../shared/use-cases/webhook-worker-events.ts';

/**
 * The stream worker: new outbox items from the table's stream (webhooks) and network members'
 * queued feedback and first sightings (the network's reputation), due webhook retries from the
 * delay queue.
 */
export async function handler(event: DynamoDBStreamEvent | SQSEvent) {
  const deps = { scheduleRetry: scheduleOnRetryQueue };
  try {
    if (event.Records[0]?.eventSource === 'aws:sqs') return await handleRetryQueue(event as SQSEvent, deps);
    const records = (event as DynamoDBStreamEvent).Records;
    const isNetwork = (r: (typeof records)[number]) =>
      r.dynamodb?.NewImage?.[NETWORK_QUEUED_ATTRIBUTE] !== undefined;
    const network = await handleNetworkStream(records.filter(isNetwork));
    const outbox = await handleOutboxStream({ Records: records.filter((r) => !isNetwork(r)) }, deps);
    return { batchItemFailures: [...network.batchItemFailures, ...outbox.batchItemFailures] };
  } finally {
    metrics.publishStoredMetrics();
  }
}
