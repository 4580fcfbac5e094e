import { runPrivacyWorker } from '../shared/use-cases/privacy-requests.ts';
import { caughtUpLakeEraser } from './lake-runner.ts';
import { pollEvery } from './poll.ts';

/**
 * Local mode's privacy worker: the same code as the AWS worker Lambda, fed by polling the pending
 * requests (DynamoDB Local has no stream to a Lambda). One pass at a time, each the lake passes due
 * of done erasures, on the local lake at `lakeDir`, then a slice of every pending request and of
 * every running offboarding.
 */
export function startPrivacyPoller(
  lakeDir: string,
  options: { intervalMs?: number; log?: (line: string) => void } = {},
) {
  const log = options.log ?? console.log;
  const lake = caughtUpLakeEraser(lakeDir);
  return pollEvery(
    options.intervalMs ?? 2_000,
    async () => {
      for (const request of await runPrivacyWorker({ lake, offboardingLake: { dir: lakeDir } })) {
        log(`privacy ${request.type} ${request.requestId}: ${request.status}`);
      }
    },
    (error) => log(`privacy worker: ${error.message}`),
  );
}
