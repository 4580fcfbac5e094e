import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { type DeliveryRef, queueDelaySeconds } from '../shared/queue/delivery-queue.ts';
import { pendingOutboxEvents } from '../shared/store/webhook-deliveries.ts';
import { createWebhookEndpoint } from '../shared/store/webhooks.ts';
import { placeOrder } from '../shared/use-cases/place-order.ts';
import { handleDeliveryQueue, handleOutboxStream } from '../shared/use-cases/webhook-worker-events.ts';
import { newMerchant } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';

/**
 * The worker Lambda's two feeds (functions/webhook-worker.ts) with the real delivery code: a stream
 * record of a new outbox item is fanned out onto the delivery queue (no receiver called), then the
 * queue's messages make every attempt, with the clock injected and the queue's sends recorded.
 */
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
});

/** A merchant with one endpoint on a fresh receiver (answering `statuses`), and one order's outbox item. */
async function orderWithEndpoint(statuses?: number[]) {
  const merchant = await newMerchant();
  const receiver = await startWebhookReceiver(statuses);
  receivers.push(receiver);
  await createWebhookEndpoint(
    merchant.merchantId,
    { url: receiver.url, events: ['decision.created'] },
    Date.now(),
  );
  await placeOrder({
    endpoint: 'order',
    merchantId: merchant.merchantId,
    pathParameters: {},
    body: orderBody() as never,
  });
  const [outbox] = await pendingOutboxEvents(10, merchant.merchantId);
  return { merchant, receiver, outbox };
}

describe('webhook worker Lambda feeds', () => {
  it('fans a stream record out onto the queue; each attempt comes from a message, re-delayed until due', async () => {
    const { merchant, receiver, outbox } = await orderWithEndpoint([500]);

    const queued: { ref: DeliveryRef; delaySeconds: number }[] = [];
    let now = Date.now();
    const deps = {
      now: () => now,
      random: () => 0.5,
      policy: 'permissive' as const,
      enqueue: async (ref: DeliveryRef, dueAt: number, at: number) => {
        queued.push({ ref, delaySeconds: queueDelaySeconds(dueAt, at) });
      },
    };
    const streamEvent = {
      Records: [
        {
          eventName: 'INSERT',
          eventSource: 'aws:dynamodb',
          dynamodb: { SequenceNumber: '1', NewImage: marshall({ entity: 'webhookEvent', ...outbox }) },
        },
      ],
    } as unknown as DynamoDBStreamEvent;
    expect(await handleOutboxStream(streamEvent, deps)).toEqual({ batchItemFailures: [] });
    // The stream called no receiver: the first attempt waits on the queue, due at once.
    expect(receiver.received).toHaveLength(0);
    expect(queued).toEqual([
      { ref: expect.objectContaining({ merchantId: merchant.merchantId }), delaySeconds: 0 },
    ]);
    // A stream record seen again (a retried batch) queues the still-pending delivery again.
    expect(await handleOutboxStream(streamEvent, deps)).toEqual({ batchItemFailures: [] });
    expect(queued.map((q) => q.ref)).toEqual([queued[0]!.ref, queued[0]!.ref]);

    const message = (ref: DeliveryRef, messageId = 'm1') =>
      ({
        Records: [{ messageId, eventSource: 'aws:sqs', body: JSON.stringify(ref) }],
      }) as unknown as SQSEvent;
    // The first attempt answers 500: the delivery goes back on the queue, delayed by its backoff.
    expect(await handleDeliveryQueue(message(queued[0]!.ref), deps)).toEqual({ batchItemFailures: [] });
    expect(receiver.received).toHaveLength(1);
    expect(queued).toHaveLength(3);
    expect(queued[2]?.delaySeconds).toBeGreaterThan(0);
    // The duplicate first message arrives after that attempt: not due, so it only waits again.
    await handleDeliveryQueue(message(queued[1]!.ref), deps);
    expect(receiver.received).toHaveLength(1);
    expect(queued).toHaveLength(4);

    now += 3_600_000;
    expect(await handleDeliveryQueue(message(queued[3]!.ref), deps)).toEqual({ batchItemFailures: [] });
    expect(receiver.received).toHaveLength(2);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // Delivered: nothing more is queued, and a stray duplicate message sends nothing.
    expect(queued).toHaveLength(4);
    await handleDeliveryQueue(message(queued[2]!.ref), deps);
    expect(receiver.received).toHaveLength(2);
  });

  it('reports a message it cannot read as failed, and still attempts the rest of the batch', async () => {
    const { receiver, outbox } = await orderWithEndpoint();
    const queued: DeliveryRef[] = [];
    const deps = {
      policy: 'permissive' as const,
      enqueue: async (ref: DeliveryRef) => void queued.push(ref),
    };
    await handleOutboxStream(
      {
        Records: [
          {
            eventName: 'INSERT',
            dynamodb: { SequenceNumber: '1', NewImage: marshall({ entity: 'webhookEvent', ...outbox }) },
          },
        ],
      } as unknown as DynamoDBStreamEvent,
      deps,
    );
    const event = {
      Records: [
        { messageId: 'bad', eventSource: 'aws:sqs', body: 'not json' },
        { messageId: 'good', eventSource: 'aws:sqs', body: JSON.stringify(queued[0]) },
      ],
    } as unknown as SQSEvent;
    expect(await handleDeliveryQueue(event, deps)).toEqual({
      batchItemFailures: [{ itemIdentifier: 'bad' }],
    });
    expect(receiver.received).toHaveLength(1);
  });
});
