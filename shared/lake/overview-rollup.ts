import type { EventType } from '../contract/endpoints.ts';
import type { OverviewCell, OverviewDayRollup } from '../store/overview-rollups.ts';
import type { LakeQueryRunner } from './lake-queries.ts';

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
