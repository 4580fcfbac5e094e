import type { EventType } from '../contract/endpoints.ts';
import { LABEL_WINDOW_DAYS } from '../learning/labels.ts';
import type { TradeoffHistogram } from '../learning/tradeoffs.ts';
import type { LakeQueryRunner } from './lake-queries.ts';

const DAY_MS = 86_400_000;
export const TRADEOFF_WINDOW_DAYS = 90;
/**
 * Value bands per e-fold of 1 + value: a cell's values are within about 13 % of each other, so each
 * event's live thresholds (which move with its value) are read at its cell's mean value.
 */
const VALUE_BANDS_PER_E = 8;

export const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/** The latest event time the merchant has sent since a day (epoch ms): when labels are read. */
export async function readLatestEventTime(
  run: LakeQueryRunner,
  merchantId: string,
  fromDay: string,
): Promise<number | undefined> {
  const [latest] = await run('latest_event', { merchant_id: merchantId, from_day: fromDay });
  return latest?.latest === null || latest?.latest === undefined ? undefined : Number(latest.latest);
}

/**
 * What the trade-off report and the good-customer guard are computed from: a merchant's decided
 * events of one type over the last 90 days, labelled as training labels them, counted by the score
 * each got, its label and its value (queries/tradeoff_histogram.sql). Counts, not rows: at most
 * 101 scores x 2 labels x the value bands (a couple of thousand cells for a typical merchant)
 * however many events the window holds, so it is kept as one item (store/tradeoff-histograms.ts)
 * and the console reads that, never the events.
 */
export async function readTradeoffHistogram(
  run: LakeQueryRunner,
  input: { merchantId: string; eventType: EventType; now: number; latestEventTime: number | undefined },
): Promise<TradeoffHistogram> {
  const from = dayOf(input.now - TRADEOFF_WINDOW_DAYS * DAY_MS);
  const histogram: TradeoffHistogram = {
    computedAt: new Date(input.now).toISOString(),
    from,
    cells: [],
    excluded: { unlabeled: 0, censored: 0 },
  };
  if (input.latestEventTime === undefined) return histogram;
  const rows = await run('tradeoff_histogram', {
    merchant_id: input.merchantId,
    kind: input.eventType,
    from_day: from,
    to_day: dayOf(input.now),
    label_now: input.latestEventTime,
    label_window_ms: LABEL_WINDOW_DAYS[input.eventType] * DAY_MS,
    value_bands_per_e: VALUE_BANDS_PER_E,
  });
  for (const row of rows) {
    const parts = Number(row.parts);
    if (row.status === 'open') histogram.excluded.unlabeled += parts;
    else if (row.status === 'censored') histogram.excluded.censored += parts;
    else
      histogram.cells.push([
        Number(row.score),
        Number(row.label) === 1 ? 1 : 0,
        Math.round((Number(row.value_sum) / parts) * 100) / 100,
        parts,
      ]);
  }
  return { ...histogram, labelledAsOf: new Date(input.latestEventTime).toISOString() };
}
