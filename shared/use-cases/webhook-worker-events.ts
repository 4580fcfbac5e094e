import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DeliveryRef, ScheduleRetry } from '../queue/retry-queue.ts';
import { UNMARSHALL_OPTIONS } from '../store/client.ts';
import { getDelivery, type OutboxEvent } from '../store/webhook-deliveries.ts';
import { type AttemptOutcome, attemptDeliveries, fanOut, type WorkerOptions } from './deliver-webhooks.ts';

/**
 * The worker Lambda's two feeds, one delivery logic (deliver-webhooks.ts): the table's stream,
 * filtered to new outbox items, fans each out and makes the first attempts; the retry queue brings
 * back a delivery when its backoff is over. A delivery still pending goes back on the queue, delayed.
 */
export interface WorkerDeps extends WorkerOptions {
  scheduleRetry: ScheduleRetry;
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
      await retryLater(await attemptDeliveries(await fanOut([outbox], deps), deps), deps);
    } catch {
      // The stream retries from this record; fan-out and attempts are safe to repeat.
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
      break;
    }
  }
  return { batchItemFailures };
}

export async function handleRetryQueue(event: SQSEvent, deps: WorkerDeps): Promise<SQSBatchResponse> {
  const now = deps.now ?? Date.now;
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    try {
      const ref = JSON.parse(message.body) as DeliveryRef;
      const delivery = await getDelivery(ref.merchantId, ref.webhookId, ref.deliveryId);
      if (delivery?.status !== 'pending' || delivery.nextAttemptAt === undefined) continue;
      // Not due yet (waits over 15 min are chains of delayed messages): wait again.
      if (delivery.nextAttemptAt > now()) await deps.scheduleRetry(ref, delivery.nextAttemptAt, now());
      else await retryLater(await attemptDeliveries([delivery], deps), deps);
    } catch {
      batchItemFailures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures };
}

async function retryLater(outcomes: readonly AttemptOutcome[], deps: WorkerDeps): Promise<void> {
  const now = deps.now ?? Date.now;
  for (const { delivery, next } of outcomes) {
    if (next.status !== 'pending') continue;
    const { merchantId, webhookId, deliveryId } = delivery;
    await deps.scheduleRetry({ merchantId, webhookId, deliveryId }, next.nextAttemptAt, now());
  }
}
