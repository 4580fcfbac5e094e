import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DeliveryRef, EnqueueDelivery } from '../queue/delivery-queue.ts';
import { UNMARSHALL_OPTIONS } from '../store/client.ts';
import { getDelivery, type OutboxEvent, type WebhookDelivery } from '../store/webhook-deliveries.ts';
import { type AttemptOutcome, attemptDeliveries, fanOut, type WorkerOptions } from './deliver-webhooks.ts';

/**
 * The worker's two feeds, one delivery logic (deliver-webhooks.ts). The table's stream (locally, the
 * outbox poller) only fans each new outbox item out into deliveries and puts a message for each on
 * the delivery queue: no receiver is called there, so a shard never waits on one. The queue's
 * consumer makes every attempt, the first included; a delivery still pending goes back on the queue,
 * delayed until its next attempt. Delivery is at least once: a message is deleted only once its
 * attempt is recorded, and a repeated fan-out puts the pending deliveries on the queue again.
 */
export interface WorkerDeps extends WorkerOptions {
  enqueue: EnqueueDelivery;
}

const refOf = ({ merchantId, webhookId, deliveryId }: WebhookDelivery): DeliveryRef => ({
  merchantId,
  webhookId,
  deliveryId,
});

/** Fans one outbox item out and queues its pending deliveries, each due at its next attempt. */
export async function fanOutAndEnqueue(outbox: OutboxEvent, deps: WorkerDeps): Promise<WebhookDelivery[]> {
  const now = deps.now ?? Date.now;
  const deliveries = await fanOut([outbox], deps);
  for (const delivery of deliveries) {
    await deps.enqueue(refOf(delivery), delivery.nextAttemptAt ?? now(), now());
  }
  return deliveries;
}

export async function handleOutboxStream(
  event: DynamoDBStreamEvent,
  deps: WorkerDeps,
): Promise<DynamoDBBatchResponse> {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) continue;
    try {
      const outbox = unmarshall(image as Record<string, AttributeValue>, UNMARSHALL_OPTIONS) as OutboxEvent;
      await fanOutAndEnqueue(outbox, deps);
    } catch {
      // The stream retries from this record; fan-out and queueing are safe to repeat.
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
      break;
    }
  }
  return { batchItemFailures };
}

/**
 * A batch of queue messages: each names a delivery. Those due are attempted together, concurrently
 * across endpoints, so a receiver that hangs delays only the messages naming it; one not due yet is
 * delayed again; one delivered or failed meanwhile is done. A message whose work failed is reported
 * and comes back after the queue's visibility timeout.
 */
export async function handleDeliveryQueue(event: SQSEvent, deps: WorkerDeps): Promise<SQSBatchResponse> {
  const now = deps.now ?? Date.now;
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  const due = new Map<string, string>();
  const dueDeliveries: WebhookDelivery[] = [];
  await Promise.all(
    event.Records.map(async (message) => {
      try {
        const ref = JSON.parse(message.body) as DeliveryRef;
        const delivery = await getDelivery(ref.merchantId, ref.webhookId, ref.deliveryId);
        if (delivery?.status !== 'pending' || delivery.nextAttemptAt === undefined) return;
        // Not due yet (waits over 15 min are chains of delayed messages): wait again.
        if (delivery.nextAttemptAt > now()) await deps.enqueue(ref, delivery.nextAttemptAt, now());
        else if (!due.has(delivery.deliveryId)) {
          due.set(delivery.deliveryId, message.messageId);
          dueDeliveries.push(delivery);
        }
      } catch {
        batchItemFailures.push({ itemIdentifier: message.messageId });
      }
    }),
  );
  const { outcomes, failed } = await attemptDeliveries(dueDeliveries, deps);
  for (const delivery of failed)
    batchItemFailures.push({ itemIdentifier: due.get(delivery.deliveryId) ?? '' });
  for (const outcome of outcomes) {
    try {
      await enqueueNextAttempt(outcome, deps);
    } catch {
      batchItemFailures.push({ itemIdentifier: due.get(outcome.delivery.deliveryId) ?? '' });
    }
  }
  return { batchItemFailures };
}

async function enqueueNextAttempt({ delivery, next }: AttemptOutcome, deps: WorkerDeps): Promise<void> {
  if (next.status !== 'pending') return;
  const now = deps.now ?? Date.now;
  await deps.enqueue(refOf(delivery), next.nextAttemptAt, now());
}
