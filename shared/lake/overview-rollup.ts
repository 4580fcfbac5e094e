import type { EventType } from '../contract/endpoints.ts';
import type { LakeQueryRunner } from './lake-queries.ts';

/** The days each nightly item recounts and the overview can show: today back to 90 days ago. */
export const OVERVIEW_ROLLUP_DAYS = 90;

/** Decision parts of one outcome, score band (of ten points) and deciding workflow branch. */
export type OverviewCell = [outcome: string, scoreBand: number, subDecision: string, parts: number];

/** One UTC day of a merchant's decisions of one type, as the overview counts them. */
export interface OverviewDayRollup {
  day: string;
  cells: OverviewCell[];
}

/**
 * A merchant's decisions of one type per UTC day between two days (inclusive), counted in the lake
 * (queries/overview_rollup.sql): counts, not rows, so each day is a bounded item however many events
 * it held. Days without a decision are left out.
 */
export async function readOverviewRollup(
  run: LakeQueryRunner,
  input: { merchantId: string; eventType: EventType; fromDay: string; toDay: string },
): Promise<OverviewDayRollup[]> {
  const rows = await run('overview_rollup', {
    merchant_id: input.merchantId,
    kind: input.eventType,
    from_day: input.fromDay,
    to_day: input.toDay,
  });
  const days = new Map<string, OverviewCell[]>();
  for (const row of rows) {
    const day = String(row.day);
    const cells = days.get(day) ?? [];
    cells.push([String(row.decision), Number(row.score_band), String(row.sub_decision), Number(row.parts)]);
    days.set(day, cells);
  }
  return [...days].map(([day, cells]) => ({ day, cells }));
}
