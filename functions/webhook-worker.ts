import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { metrics } from '../shared/observability.ts';
import { enqueueOnDeliveryQueue } from '../shared/queue/delivery-queue.ts';
import { NETWORK_QUEUED_ATTRIBUTE } from '../shared/store/network-items.ts';
import { handleNetworkStream } from '../shared/use-cases/network-worker.ts';
import { handleDeliveryQueue, handleOutboxStream } from '../shared/use-cases/webhook-worker-events.ts';

/**
 * The stream worker: new outbox items from the table's stream (fanned out onto the delivery queue)
 * and network members' queued feedback and first sightings (the network's reputation); every webhook
 * attempt from the delivery queue.
 */
export async function handler(event: DynamoDBStreamEvent | SQSEvent) {
  const deps = { enqueue: enqueueOnDeliveryQueue };
  try {
    if (event.Records[0]?.eventSource === 'aws:sqs')
      return await handleDeliveryQueue(event as SQSEvent, deps);
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
