import type { EventType } from '../contract/endpoints.ts';
import type { DecisionOutcome } from '../schemas/decision.ts';
import {
  type BacktestCoverage,
  type BacktestReport,
  backtest,
  type ReplayedDecision,
  type ReplayedEvent,
} from '../scoring/backtest.ts';
import type { ModelThresholds } from '../scoring/model.ts';
import type { FieldValue } from '../scoring/variables.ts';
import type { Workflow } from '../scoring/workflow.ts';
import { loadWorkflow } from '../scoring/workflow-engine.ts';
import type { LakeQueryRunner } from './lake-queries.ts';

/**
 * A backtest over the lake (docs/lake.md, Backtests): the candidate workflow re-decides every decision
 * part of the window, or a uniform sample of about BACKTEST_SAMPLE_CAP of them when the window holds
 * more, so the rows held at once stay bounded whatever the merchant's history. The same query runs on
 * DuckDB locally and on Athena in AWS; the re-deciding is the request path's pure code.
 */
const BACKTEST_SAMPLE_CAP = 200_000;

export interface BacktestWindow {
  merchantId: string;
  eventType: EventType;
  /** First and last day (UTC), inclusive. */
  from: string;
  to: string;
}

export interface WindowBacktest extends BacktestReport {
  from: string;
  to: string;
  coverage: BacktestCoverage;
}

/** The rate that keeps about `cap` of `parts`: 1 when they fit. */
export const sampleRateFor = (parts: number, cap = BACKTEST_SAMPLE_CAP): number =>
  parts <= cap ? 1 : cap / parts;

export async function backtestWindow(
  run: LakeQueryRunner,
  window: BacktestWindow,
  candidate: Workflow,
  cap = BACKTEST_SAMPLE_CAP,
): Promise<WindowBacktest> {
  const bounds = {
    merchant_id: window.merchantId,
    kind: window.eventType,
    from_day: window.from,
    to_day: window.to,
  };
  const [counted] = await run('event_count', bounds);
  const eventsInWindow = Number(counted?.parts ?? 0);
  const sampleRate = sampleRateFor(eventsInWindow, cap);
  // sample_key lies in [0, 1): a rate of 1 keeps every part.
  const rows = await run('backtest_events', { ...bounds, sample_rate: sampleRate });
  const events = backtestEventsOf(rows);
  return {
    from: window.from,
    to: window.to,
    coverage: { eventsInWindow, sampleRate, sampled: rows.length },
    ...backtest(await loadWorkflow(candidate), events),
  };
}

/** The query's rows (ordered by event) as the events `backtest` replays, their parts in order. */
function backtestEventsOf(rows: readonly Record<string, unknown>[]): ReplayedEvent[] {
  const events: ReplayedEvent[] = [];
  let current: { key: string; eventId: string; createdAt: string; decisions: ReplayedDecision[] } | undefined;
  for (const row of rows) {
    const key = String(row.event_key);
    if (current?.key !== key) {
      current = { key, eventId: String(row.event_id), createdAt: isoOf(row.event_at), decisions: [] };
      events.push(current);
    }
    const fields = parsedObject<Record<string, FieldValue>>(row.fields);
    const modelThresholds = parsedObject<ModelThresholds>(row.model_thresholds);
    current.decisions.push({
      decision: String(row.decision) as DecisionOutcome,
      subDecision: String(row.sub_decision ?? ''),
      abuseScore: Number(row.abuse_score),
      signals: parsedObject<Record<string, number>>(row.signals) ?? {},
      ...(fields ? { fields } : {}),
      ...(modelThresholds ? { modelThresholds } : {}),
    });
  }
  return events;
}

const isoOf = (at: unknown) => new Date(Number(at)).toISOString();

const parsedObject = <T>(json: unknown): T | undefined =>
  typeof json === 'string' && json !== '' ? (JSON.parse(json) as T) : undefined;
