import { duckDbExportWriter } from '../shared/lake/lake-export.ts';
import { duckDbRunner } from '../shared/lake/lake-queries.ts';
import { pendingBacktests } from '../shared/store/backtests.ts';
import { pendingLakeExports } from '../shared/store/lake-exports.ts';
import { runPendingBacktests } from '../shared/use-cases/backtests.ts';
import { runPendingLakeExports } from '../shared/use-cases/lake-exports.ts';
import { caughtUpLakeConnection } from './lake-runner.ts';
import { pollEvery } from './poll.ts';

/**
 * Local mode's export and backtest jobs: the code of the AWS state machines' steps, fed by polling
 * the pending exports and backtests, on the local lake caught up with the table's stream first (as
 * the CLI does), so a job holds every event recorded before it was asked. The lake poller may feed
 * at the same time: a row read twice is kept once by the queries (each row's latest revision). One
 * pass at a time.
 */
export function startLakeJobsPoller(
  dir: string,
  options: { intervalMs?: number; log?: (line: string) => void } = {},
) {
  const log = options.log ?? console.log;
  return pollEvery(
    options.intervalMs ?? 2_000,
    async () => {
      const [exports, backtests] = await Promise.all([pendingLakeExports(1), pendingBacktests(1)]);
      if (exports.length === 0 && backtests.length === 0) return;
      const lake = await caughtUpLakeConnection(dir);
      try {
        for (const done of await runPendingLakeExports(duckDbExportWriter(lake)))
          log(`export ${done.exportId}: ${done.status}${done.reason ? ` (${done.reason})` : ''}`);
        for (const done of await runPendingBacktests(duckDbRunner(lake)))
          log(`backtest ${done.backtestId}: ${done.status}${done.reason ? ` (${done.reason})` : ''}`);
      } finally {
        lake.closeSync();
      }
    },
    (error) => log(`lake jobs: ${error.message}`),
  );
}
