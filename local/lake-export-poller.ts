import { duckDbExportWriter } from '../shared/lake/lake-export.ts';
import { pendingLakeExports } from '../shared/store/lake-exports.ts';
import { runPendingLakeExports } from '../shared/use-cases/lake-exports.ts';
import { caughtUpLakeConnection } from './lake-runner.ts';
import { pollEvery } from './poll.ts';

/**
 * Local mode's export job: the code of the AWS state machine's steps, fed by polling the pending
 * exports, on the local lake caught up with the table's stream first (as the CLI does), so an export
 * holds every event recorded before it was asked. The lake poller may feed at the same time: a row
 * read twice is kept once by the queries (each row's latest revision). One pass at a time.
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
      const lake = await caughtUpLakeConnection(dir);
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
