import { duckDbExportWriter } from '../shared/lake/lake-export.ts';
import { openLocalLake } from '../shared/lake/local-lake.ts';
import { pendingLakeExports } from '../shared/store/lake-exports.ts';
import { runPendingLakeExports } from '../shared/use-cases/lake-exports.ts';
import { pollEvery } from './poll.ts';

/**
 * Local mode's export job: the code of the AWS state machine's steps, fed by polling the pending
 * exports, on the local lake as the lake poller keeps it (seconds behind the table). One pass at a time.
 */
export function startLakeExportPoller(
  dir: string,
  options: { intervalMs?: number; log?: (line: string) => void } = {},
) {
  const log = options.log ?? console.log;
  return pollEvery(
    options.intervalMs ?? 2_000,
    async () => {
      if ((await pendingLakeExports(1)).length === 0) return;
      const lake = await openLocalLake(dir);
      try {
        for (const done of await runPendingLakeExports(duckDbExportWriter(lake)))
          log(`export ${done.exportId}: ${done.status}${done.reason ? ` (${done.reason})` : ''}`);
      } finally {
        lake.closeSync();
      }
    },
    (error) => log(`export job: ${error.message}`),
  );
}
