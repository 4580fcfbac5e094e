import { randomUUID } from 'node:crypto';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type EnqueueDelivery, queueDelaySeconds } from '../shared/queue/delivery-queue.ts';

/**
 * Local mode's delivery queue: what SQS and Lambda's event source mapping do in AWS, inside the local
 * server's process. A message waits out its delay (at most 15 minutes, as SQS allows), is received in
 * a batch of up to 10, stays invisible while its batch runs, is deleted once handled, and comes back
 * after the visibility timeout when its batch reports it failed; after MAX_RECEIVES it is dropped as
 * the dead-letter queue would take it. Batches run side by side, none waiting for another, as Lambda
 * scales its consumers: a batch stuck on a receiver that never answers holds only its own messages.
 * Messages live in memory; the table stays the source of truth (local/webhook-poller.ts queues every
 * pending delivery again when it starts).
 */
const BATCH_SIZE = 10;
const RECEIVE_EVERY_MS = 50;
const VISIBILITY_TIMEOUT_MS = 60_000;
const MAX_RECEIVES = 5;

interface Message {
  messageId: string;
  body: string;
  visibleAt: number;
  receives: number;
}

type Consumer = (event: SQSEvent) => Promise<SQSBatchResponse>;

export class LocalDeliveryQueue {
  private readonly messages = new Map<string, Message>();
  private timer: NodeJS.Timeout | undefined;
  private readonly running = new Set<Promise<void>>();

  private readonly onDeadLetter: (body: string) => void;

  constructor(onDeadLetter: (body: string) => void = () => {}) {
    this.onDeadLetter = onDeadLetter;
  }

  readonly enqueue: EnqueueDelivery = async (ref, dueAt, now) => {
    const messageId = randomUUID();
    const visibleAt = Date.now() + queueDelaySeconds(dueAt, now) * 1000;
    this.messages.set(messageId, { messageId, body: JSON.stringify(ref), visibleAt, receives: 0 });
  };

  /** Receives visible messages every RECEIVE_EVERY_MS and hands each batch to `consume`. */
  start(consume: Consumer): void {
    const receive = () => {
      const now = Date.now();
      const visible = [...this.messages.values()].filter((m) => m.visibleAt <= now);
      for (let i = 0; i < visible.length; i += BATCH_SIZE) {
        const batch = visible.slice(i, i + BATCH_SIZE);
        for (const message of batch) {
          message.visibleAt = now + VISIBILITY_TIMEOUT_MS;
          message.receives++;
        }
        const run = this.runBatch(batch, consume).finally(() => this.running.delete(run));
        this.running.add(run);
      }
      this.timer = setTimeout(receive, RECEIVE_EVERY_MS);
    };
    this.timer = setTimeout(receive, RECEIVE_EVERY_MS);
  }

  /** Stops receiving and waits for the batches in flight. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await Promise.all(this.running);
  }

  private async runBatch(batch: readonly Message[], consume: Consumer): Promise<void> {
    const event = {
      Records: batch.map((m) => ({ messageId: m.messageId, body: m.body, eventSource: 'aws:sqs' })),
    } as SQSEvent;
    let failed: Set<string>;
    try {
      failed = new Set((await consume(event)).batchItemFailures.map((f) => f.itemIdentifier));
    } catch {
      failed = new Set(batch.map((m) => m.messageId));
    }
    for (const message of batch) {
      if (!failed.has(message.messageId)) this.messages.delete(message.messageId);
      else if (message.receives >= MAX_RECEIVES) {
        this.messages.delete(message.messageId);
        this.onDeadLetter(message.body);
      }
    }
  }
}
