import { z } from 'zod';
import { athenaRunner } from '../shared/lake/athena-runner.ts';
import { backtestStep, recordBacktestFailure } from '../shared/use-cases/backtests.ts';

/**
 * The backtest state machine's steps: re-decide the window from the lake (Athena) and record the
 * report; or, once that step's retries are spent, record why it failed.
 */
const input = z.object({
  merchantId: z.string().min(1).max(64),
  backtestId: z.string().min(1).max(64),
  error: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});

const lake = athenaRunner({
  workGroup: String(process.env.LAKE_WORKGROUP),
  database: String(process.env.LAKE_DATABASE),
});

export async function handler(event: unknown) {
  const { error, ...ids } = input.parse(event);
  if (!error) return { status: await backtestStep(ids, lake) };
  await recordBacktestFailure(ids, error.Cause ?? error.Error ?? 'failed');
  return { status: 'failed' };
}
