import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { readRuntimeConfig } from '../config.ts';

/**
 * The webhook delivery queue: every attempt of a delivery, the first included, starts from a message
 * naming it, delayed until the attempt is due. Receivers are called only by the queue's consumer, so a
 * slow or dead receiver holds up its own messages, never the table's stream or anyone else's. SQS
 * delays a message at most 15 minutes, so a longer wait is a chain of delayed messages. Locally the
 * same messages go to local/delivery-queue.ts.
 */
export interface DeliveryRef {
  merchantId: string;
  webhookId: string;
  deliveryId: string;
}

const MAX_QUEUE_DELAY_SECONDS = 900;

export type EnqueueDelivery = (ref: DeliveryRef, dueAt: number, now: number) => Promise<void>;

let client: SQSClient | undefined;

/** Sends the reference with the delay until it is due (at most 15 min; the consumer re-delays). */
export const enqueueOnDeliveryQueue: EnqueueDelivery = async (ref, dueAt, now) => {
  const queueUrl = process.env.WEBHOOK_DELIVERY_QUEUE_URL;
  if (!queueUrl) throw new Error('WEBHOOK_DELIVERY_QUEUE_URL is not set');
  client ??= new SQSClient({ region: readRuntimeConfig().region });
  await client.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify(ref),
      DelaySeconds: queueDelaySeconds(dueAt, now),
    }),
  );
};

export const queueDelaySeconds = (dueAt: number, now: number) =>
  Math.max(0, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil((dueAt - now) / 1000)));
