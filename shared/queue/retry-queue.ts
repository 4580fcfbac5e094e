import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { readRuntimeConfig } from '../config.ts';

/**
 * The webhook retry queue (AWS only): a failed delivery waits as a delayed message naming it. SQS
 * delays a message at most 15 minutes, so a longer wait is a chain of delayed messages.
 */
export interface DeliveryRef {
  merchantId: string;
  webhookId: string;
  deliveryId: string;
}

const MAX_QUEUE_DELAY_SECONDS = 900;

export type ScheduleRetry = (ref: DeliveryRef, dueAt: number, now: number) => Promise<void>;

let client: SQSClient | undefined;

/** Sends the reference with the delay until it is due (at most 15 min; the worker re-delays). */
export const scheduleOnRetryQueue: ScheduleRetry = async (ref, dueAt, now) => {
  const queueUrl = process.env.WEBHOOK_RETRY_QUEUE_URL;
  if (!queueUrl) throw new Error('WEBHOOK_RETRY_QUEUE_URL is not set');
  client ??= new SQSClient({ region: readRuntimeConfig().region });
  await client.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify(ref),
      DelaySeconds: retryDelaySeconds(dueAt, now),
    }),
  );
};

export const retryDelaySeconds = (dueAt: number, now: number) =>
  Math.max(0, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil((dueAt - now) / 1000)));
