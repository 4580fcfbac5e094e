import { newBacktestId } from '../ids.ts';
import { backtestWindow } from '../lake/lake-backtest.ts';
import type { LakeQueryRunner } from '../lake/lake-queries.ts';
import { type BacktestRequest, type BacktestStatus, DEFAULT_BACKTEST_DAYS } from '../schemas/console.ts';
import type { Workflow } from '../scoring/workflow.ts';
import {
  type Backtest,
  createBacktest,
  finishBacktest,
  getBacktest,
  markBacktestRunning,
  pendingBacktests,
} from '../store/backtests.ts';

/**
 * A workflow backtest as a job (docs/lake.md, Backtests): accepted at once with its candidate, then
 * run over the lake (a state machine's step in AWS, the local runner here) and its report recorded
 * on it. The candidate re-decides every decision of the window, or a uniform sample it states.
 */
const DAY_MS = 86_400_000;
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

export async function requestBacktest(
  merchantId: string,
  request: Pick<BacktestRequest, 'eventType' | 'from' | 'to'>,
  candidate: Workflow,
  now: number,
): Promise<Backtest> {
  const to = request.to ?? dayOf(now);
  const record: Backtest = {
    merchantId,
    backtestId: newBacktestId(),
    status: 'pending',
    eventType: request.eventType,
    from: request.from ?? dayOf(Date.parse(to) - (DEFAULT_BACKTEST_DAYS - 1) * DAY_MS),
    to,
    candidate,
    createdAt: new Date(now).toISOString(),
  };
  await createBacktest(record, now);
  return record;
}

/** The job's work (a retried step in AWS): re-decides the window and records the report once. */
export async function backtestStep(
  ids: Pick<Backtest, 'merchantId' | 'backtestId'>,
  run: LakeQueryRunner,
  sampleCap?: number,
): Promise<Backtest['status']> {
  const record = await getBacktest(ids.merchantId, ids.backtestId);
  if (!record) throw new Error(`no backtest ${ids.backtestId} at ${ids.merchantId}`);
  if (record.status === 'done' || record.status === 'failed') return record.status;
  await markBacktestRunning(record, Date.now());
  const { from, to, coverage, ...report } = await backtestWindow(run, record, record.candidate, sampleCap);
  await finishBacktest(record, { status: 'done', coverage, report }, Date.now());
  return 'done';
}

/** Why the job stopped, once its retries are spent. */
export async function recordBacktestFailure(
  ids: Pick<Backtest, 'merchantId' | 'backtestId'>,
  reason: string,
): Promise<void> {
  await finishBacktest(ids, { status: 'failed', reason: reason.slice(0, 500) }, Date.now());
}

/** Runs one backtest whole, failed with its reason if it throws: the local runner and the admin CLI. */
export async function runBacktest(
  record: Pick<Backtest, 'merchantId' | 'backtestId'>,
  run: LakeQueryRunner,
  sampleCap?: number,
): Promise<Backtest | undefined> {
  try {
    await backtestStep(record, run, sampleCap);
  } catch (error) {
    await recordBacktestFailure(record, (error as Error).message);
  }
  return getBacktest(record.merchantId, record.backtestId);
}

/** Every waiting backtest, oldest first (the local runner's pass). */
export async function runPendingBacktests(
  run: LakeQueryRunner,
  { limit = 10, sampleCap = undefined as number | undefined } = {},
) {
  const finished: Backtest[] = [];
  for (const record of await pendingBacktests(limit)) {
    const ended = await runBacktest(record, run, sampleCap);
    if (ended) finished.push(ended);
  }
  return finished;
}

/** The backtest as GET answers it: the candidate stays with the job, the report is shown once done. */
export const backtestView = (record: Backtest): BacktestStatus => ({
  backtestId: record.backtestId,
  status: record.status,
  eventType: record.eventType,
  from: record.from,
  to: record.to,
  createdAt: record.createdAt,
  ...(record.startedAt ? { startedAt: record.startedAt } : {}),
  ...(record.finishedAt ? { finishedAt: record.finishedAt } : {}),
  ...(record.status === 'done' ? { coverage: record.coverage, report: record.report } : {}),
  ...(record.reason ? { reason: record.reason } : {}),
});
