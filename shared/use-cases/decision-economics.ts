import type { EventType } from '../contract/endpoints.ts';
import type { LakeQueryRunner } from '../lake/lake-queries.ts';
import {
  dayOf,
  readLatestEventTime,
  readTradeoffHistogram,
  TRADEOFF_WINDOW_DAYS,
} from '../lake/tradeoff-histogram.ts';
import {
  chooseThresholds,
  type GoodCustomerBudget,
  goodEventsToMeasure,
  measuredFloors,
} from '../learning/evaluation.ts';
import type { TradeoffRow } from '../learning/tradeoffs.ts';
import type { KeptHoldout } from '../learning/train.ts';
import { DEFAULT_BUDGET, type DecisionSettings } from '../scoring/decision-settings.ts';
import { DEFAULT_GUARD_FLOORS, floorsFor } from '../scoring/decision-thresholds.ts';
import type { ScoringModel } from '../scoring/model.ts';
import { DEFAULT_MODEL_THRESHOLDS, modelFor } from '../scoring/models.ts';
import {
  type FloorSource,
  getDecisionSettings,
  type StoredGuard,
  saveGuard,
} from '../store/decision-settings.ts';
import { getModelPointers, getModelVersion } from '../store/model-versions.ts';
import { getTradeoffHistogram, saveTradeoffHistogram } from '../store/tradeoff-histograms.ts';

/**
 * What the good-customer guard and the trade-off report are computed from, off the decision path:
 * the type's trade-off histogram (lake/tradeoff-histogram.ts), the merchant's decisions of the last
 * 90 days labeled as training labels them and counted by the score each was decided with, which the
 * nightly item keeps (store/tradeoff-histograms.ts); and a trained live version's kept holdout.
 */
export interface LabeledDecisions {
  /** The window's first day, when the histogram was computed and the clock its labels were read at. */
  from?: string;
  computedAt?: string;
  labelledAsOf?: string;
  /** One row per cell: its score, label and mean value, weighing the parts it counts. */
  rows: TradeoffRow[];
  /** Decided events without a settled label yet (window open) and declines never observed. */
  excluded: { unlabeled: number; censored: number };
}

/** The kept histogram as trade-off rows; none (and no dates) before the first nightly item. */
export async function loadLabeledDecisions(
  merchantId: string,
  eventType: EventType,
): Promise<LabeledDecisions> {
  const histogram = await getTradeoffHistogram(merchantId, eventType);
  if (!histogram) return { rows: [], excluded: { unlabeled: 0, censored: 0 } };
  const { from, computedAt, labelledAsOf, excluded } = histogram;
  return {
    from,
    computedAt,
    ...(labelledAsOf ? { labelledAsOf } : {}),
    rows: histogram.cells.map(([score, label, value, parts]) => ({ score, label, value, weight: parts })),
    excluded,
  };
}

/**
 * Counts the types' histograms from the lake again and keeps them, as the nightly item does before
 * it fits: for a caller that measures the guard between trainings (the eval's weekly guard). Labels
 * are read as of the merchant's latest event, the same for every type, so it is read once.
 */
export async function recountTradeoffHistograms(
  run: LakeQueryRunner,
  merchantId: string,
  eventTypes: readonly EventType[],
  now: number,
): Promise<void> {
  const fromDay = dayOf(now - TRADEOFF_WINDOW_DAYS * 86_400_000);
  const latestEventTime = await readLatestEventTime(run, merchantId, fromDay);
  for (const eventType of eventTypes) {
    const histogram = await readTradeoffHistogram(run, { merchantId, eventType, now, latestEventTime });
    await saveTradeoffHistogram(merchantId, eventType, histogram);
  }
}

/** A trained version's kept holdout as trade-off rows (sampled good rows weigh what they stand for). */
export const holdoutTradeoffRows = (kept: KeptHoldout): TradeoffRow[] =>
  kept.rows.map(([score, label, value]) => ({
    score,
    label,
    value,
    weight: label === 0 ? kept.goodWeight : 1,
  }));

const budgetOf = (settings: DecisionSettings): GoodCustomerBudget => ({
  maxGoodDeclinedShare: settings.maxGoodDeclinedShare,
  maxGoodReviewedShare: settings.maxGoodReviewedShare,
});

const isDefaultBudget = (budget: GoodCustomerBudget) =>
  budget.maxGoodDeclinedShare === DEFAULT_BUDGET.maxGoodDeclinedShare &&
  budget.maxGoodReviewedShare === DEFAULT_BUDGET.maxGoodReviewedShare;

/**
 * The guard's floors for the live model under the merchant's budget:
 * - a trained version: the thresholds it chose on its holdout by the budget (under another budget
 *   than the default, chosen again the same way from the holdout it keeps);
 * - the default model: measured on the labeled decisions (evaluation.ts measuredFloors), each floor
 *   the default (50 DECLINE, 30 REVIEW) until enough good events can measure its share.
 */
export async function computeGuard(
  merchantId: string,
  eventType: EventType,
  settings: DecisionSettings,
  model: ScoringModel,
  labeled: () => Promise<LabeledDecisions>,
  now: number,
): Promise<StoredGuard> {
  const budget = budgetOf(settings);
  const computedAt = new Date(now).toISOString();
  if (model.thresholds) {
    const version = await getModelVersion(merchantId, eventType, model.version);
    const kept = version?.evaluation.holdoutRows;
    const floors =
      kept && !isDefaultBudget(budget)
        ? chooseThresholds(
            kept.rows.map(([score, label]) => ({ probability: score / 100, label })),
            DEFAULT_MODEL_THRESHOLDS[eventType],
            budget,
          )
        : model.thresholds;
    const holdout = version?.evaluation.holdout;
    return {
      modelVersion: model.version,
      budget,
      ...floors,
      source: { declineAt: 'holdout', reviewAt: 'holdout' },
      events: holdout?.events ?? 0,
      goodEvents: holdout ? holdout.events - holdout.positives : 0,
      computedAt,
    };
  }
  const { rows } = await labeled();
  const measured = measuredFloors(
    rows.map((row) => ({ probability: row.score / 100, label: row.label, count: row.weight })),
    budget,
  );
  const weighOf = (kept: readonly TradeoffRow[]) => kept.reduce((n, row) => n + row.weight, 0);
  return {
    modelVersion: model.version,
    budget,
    declineAt: measured.declineAt,
    reviewAt: measured.reviewAt,
    source: {
      declineAt: measured.measured.declineAt ? 'measured' : 'default',
      reviewAt: measured.measured.reviewAt ? 'measured' : 'default',
    },
    events: weighOf(rows),
    goodEvents: weighOf(rows.filter((row) => row.label === 0)),
    computedAt,
  };
}

/** The merchant's live model for the type: its active version, or the default. */
export async function liveModelOf(merchantId: string, eventType: EventType): Promise<ScoringModel> {
  return (await getModelPointers(merchantId, eventType)).active ?? modelFor(eventType);
}

/** The guard for these settings and model, computed from the merchant's decisions labeled so far. */
export function guardFromLabeledHistory(
  merchantId: string,
  eventType: EventType,
  settings: DecisionSettings,
  model: ScoringModel,
  now: number,
): Promise<StoredGuard> {
  return computeGuard(
    merchantId,
    eventType,
    settings,
    model,
    () => loadLabeledDecisions(merchantId, eventType),
    now,
  );
}

/** Recomputes and keeps the guard (the nightly job): returns the floors now in force. */
export async function refreshGuard(
  merchantId: string,
  eventType: EventType,
  now: number,
): Promise<StoredGuard> {
  const [{ settings }, model] = await Promise.all([
    getDecisionSettings(merchantId, eventType),
    liveModelOf(merchantId, eventType),
  ]);
  const guard = await guardFromLabeledHistory(merchantId, eventType, settings, model, now);
  await saveGuard(merchantId, eventType, guard);
  return guard;
}

/**
 * The floors decisions use now, as the merchant sees them: the stored guard when it was computed for
 * the live model and the current budget; else the trained version's own thresholds; else the default.
 */
export type GuardInForce = Omit<StoredGuard, 'computedAt'> & { computedAt?: string };

export function guardInForce(
  settings: DecisionSettings,
  model: ScoringModel,
  stored: StoredGuard | undefined,
): GuardInForce {
  if (stored && floorsFor(model, settings, stored) === stored) return stored;
  const source = model.thresholds ? 'holdout' : 'default';
  return {
    modelVersion: model.version,
    budget: budgetOf(settings),
    ...(model.thresholds ?? DEFAULT_GUARD_FLOORS),
    source: { declineAt: source, reviewAt: source },
    events: 0,
    goodEvents: 0,
  };
}

/** The guard in words: which floor came from where. */
export function guardExplanation(guard: GuardInForce): string {
  const percent = (share: number) => `${Number((share * 100).toFixed(4))} %`;
  const { maxGoodDeclinedShare, maxGoodReviewedShare } = guard.budget;
  const words = (what: 'DECLINE' | 'REVIEW', at: number, share: number, source: FloorSource) => {
    if (source === 'measured')
      return `${what} from ${at}, measured on ${guard.goodEvents} good of ${guard.events} labeled events of the last ${TRADEOFF_WINDOW_DAYS} days`;
    if (source === 'holdout') return `${what} from ${at}, chosen on the holdout of ${guard.modelVersion}`;
    const until =
      share > 0
        ? `until ${goodEventsToMeasure(share)} good labeled events can measure ${percent(share)} (${guard.goodEvents} so far)`
        : '(a budget of 0 cannot be measured)';
    return `${what} from ${at}, the default ${until}`;
  };
  return `Budget: ${percent(maxGoodDeclinedShare)} of good events declined, ${percent(maxGoodReviewedShare)} reviewed. ${words('DECLINE', guard.declineAt, maxGoodDeclinedShare, guard.source.declineAt)}; ${words('REVIEW', guard.reviewAt, maxGoodReviewedShare, guard.source.reviewAt)}.`;
}
