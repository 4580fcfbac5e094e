import { runPrivacyWorker } from '../shared/use-cases/privacy-requests.ts';
import { pollEvery } from './poll.ts';

/**
 * Local mode's privacy worker: the same code as the AWS worker Lambda, fed by polling the pending
 * requests (DynamoDB Local has no stream to a Lambda). One pass at a time, each a slice of every
 * pending request.
 */
export function startPrivacyPoller(options: { intervalMs?: number; log?: (line: string) => void } = {}) {
  const log = options.log ?? console.log;
  return pollEvery(
    options.intervalMs ?? 2_000,
    async () => {
      for (const request of await runPrivacyWorker()) {
        log(`privacy ${request.type} ${request.requestId}: ${request.status}`);
      }
    },
    (error) => log(`privacy worker: ${error.message}`),
  );
}
