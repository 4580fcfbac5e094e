import type { EventType } from '../contract/endpoints.ts';
import { type BacktestReport, backtest } from '../scoring/backtest.ts';
import type { Workflow } from '../scoring/workflow.ts';
import { loadWorkflow } from '../scoring/workflow-engine.ts';
import { listDecidedEvents } from '../store/decided-events.ts';

/**
 * What the admin CLI and the console share when a workflow changes: version ids and the backtest of
 * a candidate on the merchant's recent stored decisions.
 */
const DAY_MS = 86_400_000;
/** Enough recent events to judge a change without turning a backtest into a table export. */
export const DEFAULT_BACKTEST_LIMIT = 10_000;
const DEFAULT_BACKTEST_DAYS = 30;

/** Sortable by time, unique enough for one merchant's edits: `wf_<epoch ms>_<4 random chars>`. */
export const newWorkflowVersionId = (now: number) =>
  `wf_${now}_${Math.random().toString(36).slice(2, 6).padEnd(4, '0')}`;

export interface RecentBacktest extends BacktestReport {
  since: string;
  /** Only the newest `limit` events were replayed. */
  truncated: boolean;
}

export async function backtestRecent(
  merchantId: string,
  eventType: EventType,
  candidate: Workflow,
  { days = DEFAULT_BACKTEST_DAYS, limit = DEFAULT_BACKTEST_LIMIT, now = Date.now() } = {},
): Promise<RecentBacktest> {
  const since = now - days * DAY_MS;
  const { events, more } = await listDecidedEvents(merchantId, eventType, since, limit);
  return {
    since: new Date(since).toISOString(),
    truncated: more,
    ...backtest(await loadWorkflow(candidate), events),
  };
}
