import { runWebhookWorker } from '../shared/use-cases/deliver-webhooks.ts';

/**
 * Local mode's webhook worker: the same delivery code as the AWS worker Lambda, fed by polling the
 * outbox and the due deliveries (DynamoDB Local has no Lambda to stream to). One pass at a time.
 */
export function startWebhookPoller(options: { intervalMs?: number; log?: (line: string) => void } = {}) {
  const intervalMs = options.intervalMs ?? 1_000;
  const log = options.log ?? console.log;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const pass = async () => {
    try {
      for (const { delivery, result, next } of await runWebhookWorker()) {
        const answer = result.ok ? `HTTP ${result.status}` : result.error;
        const then =
          next.status === 'pending' ? `, next attempt ${new Date(next.nextAttemptAt).toISOString()}` : '';
        log(
          `webhook ${delivery.type} ${delivery.eventId} -> ${delivery.webhookId}: ${answer} (${next.status}${then})`,
        );
      }
    } catch (error) {
      log(`webhook worker: ${(error as Error).message}`);
    }
    if (!stopped) timer = setTimeout(pass, intervalMs);
  };
  timer = setTimeout(pass, intervalMs);
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
