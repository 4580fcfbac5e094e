import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeliveryRef } from '../shared/queue/retry-queue.ts';
import { retryDelaySeconds } from '../shared/queue/retry-queue.ts';
import { pendingOutboxEvents } from '../shared/store/webhook-deliveries.ts';
import { createWebhookEndpoint } from '../shared/store/webhooks.ts';
import { placeOrder } from '../shared/use-cases/place-order.ts';
import { handleOutboxStream, handleRetryQueue } from '../shared/use-cases/webhook-worker-events.ts';
import { newMerchant } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';

/**
 * The worker Lambda's two feeds (functions/webhook-worker.ts) with the real delivery code: a stream
 * record of a new outbox item, then the retry queue's delayed messages, with the clock injected.
 */
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
});

describe('webhook worker Lambda feeds', () => {
  it('delivers from a stream record; a failed attempt waits as a delayed message, re-delayed until due', async () => {
    const merchant = await newMerchant();
    const receiver = await startWebhookReceiver([500]);
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

    const scheduled: { ref: DeliveryRef; delaySeconds: number }[] = [];
    let now = Date.now();
    const deps = {
      now: () => now,
      random: () => 0.5,
      policy: 'permissive' as const,
      scheduleRetry: async (ref: DeliveryRef, dueAt: number, at: number) => {
        scheduled.push({ ref, delaySeconds: retryDelaySeconds(dueAt, at) });
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
    expect(receiver.received).toHaveLength(1);
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0]?.delaySeconds).toBeGreaterThan(0);

    const message = (ref: DeliveryRef) =>
      ({
        Records: [{ messageId: 'm1', eventSource: 'aws:sqs', body: JSON.stringify(ref) }],
      }) as unknown as SQSEvent;
    // Delivered early (a long wait is a chain of 15-minute delays): nothing is sent, it waits again.
    await handleRetryQueue(message(scheduled[0]!.ref), deps);
    expect(receiver.received).toHaveLength(1);
    expect(scheduled).toHaveLength(2);

    now += 3_600_000;
    expect(await handleRetryQueue(message(scheduled[1]!.ref), deps)).toEqual({ batchItemFailures: [] });
    expect(receiver.received).toHaveLength(2);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // Delivered: nothing more is scheduled, and a stray duplicate message sends nothing.
    expect(scheduled).toHaveLength(2);
    await handleRetryQueue(message(scheduled[1]!.ref), deps);
    expect(receiver.received).toHaveLength(2);
  });
});
