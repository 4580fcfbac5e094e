import { runNetworkWorker } from '../shared/use-cases/network-worker.ts';
import { pollEvery } from './poll.ts';

/**
 * Local mode's network worker: the same code as the AWS worker Lambda's network records
 * (shared/use-cases/network-worker.ts), fed by polling the network queue instead of the stream.
 */
export function startNetworkPoller(options: { intervalMs?: number; log?: (line: string) => void } = {}) {
  const log = options.log ?? console.log;
  return pollEvery(
    options.intervalMs ?? 1_000,
    async () => {
      await runNetworkWorker();
    },
    (error) => log(`network worker: ${error.message}`),
  );
}
