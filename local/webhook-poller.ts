import { dueDeliveries, pendingOutboxEvents } from '../shared/store/webhook-deliveries.ts';
import type { WorkerOptions } from '../shared/use-cases/deliver-webhooks.ts';
import { fanOutAndEnqueue, handleDeliveryQueue } from '../shared/use-cases/webhook-worker-events.ts';
import { RETRY_WINDOW_MS } from '../shared/webhooks/schedule.ts';
import { LocalDeliveryQueue } from './delivery-queue.ts';
import { pollEvery } from './poll.ts';

const OUTBOX_BATCH = 50;
/** Pending deliveries queued again at start: more than a local table holds. */
const PENDING_AT_START = 10_000;

/**
 * Local mode's webhook worker, the AWS path with local stand-ins: the outbox is polled where the
 * table's stream feeds the worker Lambda (DynamoDB Local has no Lambda to stream to), each new item
 * fanned out onto the local delivery queue, whose consumer is the Lambda's own queue handler. The
 * queue is in memory, so at start every pending delivery in the table is queued again at its time.
 */
export function startWebhookPoller(
  options: { intervalMs?: number; log?: (line: string) => void; worker?: WorkerOptions } = {},
) {
  const log = options.log ?? console.log;
  const queue = new LocalDeliveryQueue((body) => log(`webhook delivery queue: gave up on ${body}`));
  const deps = {
    ...options.worker,
    enqueue: queue.enqueue,
    onAttempt: options.worker?.onAttempt ?? logAttempt(log),
  };
  const requeued = (async () => {
    const now = Date.now();
    for (const { merchantId, webhookId, deliveryId, nextAttemptAt } of await dueDeliveries(
      now + RETRY_WINDOW_MS,
      PENDING_AT_START,
      options.worker?.merchantId,
    )) {
      await queue.enqueue({ merchantId, webhookId, deliveryId }, nextAttemptAt ?? now, now);
    }
  })().catch((error: Error) => log(`webhook worker: ${error.message}`));
  queue.start((event) => handleDeliveryQueue(event, deps));
  const outbox = pollEvery(
    options.intervalMs ?? 1_000,
    async () => {
      await requeued;
      const events = await pendingOutboxEvents(OUTBOX_BATCH, options.worker?.merchantId);
      for (const event of events) await fanOutAndEnqueue(event, deps);
    },
    (error) => log(`webhook worker: ${error.message}`),
  );
  return {
    stop: async () => {
      outbox.stop();
      await queue.stop();
    },
  };
}

const logAttempt =
  (log: (line: string) => void): NonNullable<WorkerOptions['onAttempt']> =>
  ({ delivery, result, next }) => {
    const answer = result.ok ? `HTTP ${result.status}` : result.error;
    const then =
      next.status === 'pending' ? `, next attempt ${new Date(next.nextAttemptAt).toISOString()}` : '';
    log(
      `webhook ${delivery.type} ${delivery.eventId} -> ${delivery.webhookId}: ${answer} (${next.status}${then})`,
    );
  };
