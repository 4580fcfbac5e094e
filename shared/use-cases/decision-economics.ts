import type { EventType } from '../contract/endpoints.ts';
import {
  chooseThresholds,
  type GoodCustomerBudget,
  goodEventsToMeasure,
  measuredFloors,
  toScore,
} from '../learning/evaluation.ts';
import { classifyEvents } from '../learning/labels.ts';
import type { TradeoffRow } from '../learning/tradeoffs.ts';
import { type KeptHoldout, probabilityOf } from '../learning/train.ts';
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
import { loadTrainingData } from '../store/training-rows.ts';

/**
 * What the good-customer guard and the trade-off report are computed from, off the decision path:
 * the merchant's labeled decisions of the last 90 days (labels as training reads them) scored by
 * the live model, and a trained live version's kept holdout.
 */
const DAY_MS = 86_400_000;
const TRADEOFF_WINDOW_DAYS = 90;
/**
 * Events read per type (newest first) for one report or guard: past it the answer says
 * `truncated`. Account types read orders and returns too (their labels come from them), each capped.
 */
const MAX_TRADEOFF_EVENTS = 20_000;

export interface LabeledDecisions {
  since: number;
  rows: TradeoffRow[];
  /** Decided events without a label yet (window open, no feedback) and declines never observed. */
  excluded: { unlabeled: number; censored: number };
  truncated: boolean;
}

/** The last 90 days of labeled decisions of the type, each scored by `model` from its stored signals. */
export async function loadLabeledDecisions(
  merchantId: string,
  eventType: EventType,
  model: ScoringModel,
  now: number,
): Promise<LabeledDecisions> {
  const since = now - TRADEOFF_WINDOW_DAYS * DAY_MS;
  const data = await loadTrainingData(merchantId, eventType, MAX_TRADEOFF_EVENTS, since);
  const own = data.events.filter((e) => e.eventType === eventType);
  const empty = { since, rows: [], excluded: { unlabeled: 0, censored: 0 }, truncated: false };
  if (data.latestEventTime === undefined) return empty;
  // Labeled as training labels them: as of the merchant's latest event (imports keep their own time).
  const { labeled, censored } = classifyEvents(eventType, own, data.feedback, data.latestEventTime);
  const parts = own.reduce((n, e) => n + e.parts.length, 0);
  return {
    since,
    rows: labeled.map((row) => ({
      score: toScore(probabilityOf(model, row.signals)),
      label: row.label,
      value: row.value ?? 0,
      weight: 1,
    })),
    excluded: { unlabeled: parts - labeled.length - censored.length, censored: censored.length },
    truncated: own.length >= MAX_TRADEOFF_EVENTS,
  };
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
    rows.map((row) => ({ probability: row.score / 100, label: row.label })),
    budget,
  );
  return {
    modelVersion: model.version,
    budget,
    declineAt: measured.declineAt,
    reviewAt: measured.reviewAt,
    source: {
      declineAt: measured.measured.declineAt ? 'measured' : 'default',
      reviewAt: measured.measured.reviewAt ? 'measured' : 'default',
    },
    events: rows.length,
    goodEvents: rows.filter((row) => row.label === 0).length,
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
    () => loadLabeledDecisions(merchantId, eventType, model, now),
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
