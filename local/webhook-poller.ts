import { runWebhookWorker } from '../shared/use-cases/deliver-webhooks.ts';
import { pollEvery } from './poll.ts';

/**
 * Local mode's webhook worker: the same delivery code as the AWS worker Lambda, fed by polling the
 * outbox and the due deliveries (DynamoDB Local has no Lambda to stream to). One pass at a time.
 */
export function startWebhookPoller(options: { intervalMs?: number; log?: (line: string) => void } = {}) {
  const log = options.log ?? console.log;
  return pollEvery(
    options.intervalMs ?? 1_000,
    async () => {
      for (const { delivery, result, next } of await runWebhookWorker()) {
        const answer = result.ok ? `HTTP ${result.status}` : result.error;
        const then =
          next.status === 'pending' ? `, next attempt ${new Date(next.nextAttemptAt).toISOString()}` : '';
        log(
          `webhook ${delivery.type} ${delivery.eventId} -> ${delivery.webhookId}: ${answer} (${next.status}${then})`,
        );
      }
    },
    (error) => log(`webhook worker: ${error.message}`),
  );
}
