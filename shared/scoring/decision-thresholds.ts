import type { EventType } from '../contract/endpoints.ts';
import type { DecisionSettings } from './decision-settings.ts';
import type { ModelThresholds, ScoringModel } from './model.ts';
import type { FieldValue } from './variables.ts';

/**
 * The thresholds one event is decided at (what `modelDeclineAt` and `modelReviewAt` hold for the
 * default workflows), from the merchant's economics for its event type, with p the live model's
 * calibrated probability of abuse, A what approving an abusive event costs, D what declining a good
 * one costs and R a review:
 * - decline where approving is expected to cost more than declining, p·A > (1 − p)·D, i.e. above
 *   p_d = D / (A + D);
 * - review, where the workflow can and review capacity is left today, where a review is cheaper
 *   than both, R < p·A and R < (1 − p)·D, i.e. p in (R/A, 1 − R/D) (empty unless R < AD / (A + D));
 *   DECLINE then starts where declining gets cheaper than a review, max(p_d, 1 − R/D);
 * - the good-customer guard only raises them: DECLINE to at least its decline floor, REVIEW to at
 *   least its review floor (never above DECLINE).
 * Thresholds are scores: the smallest integer score at or above the cut. Pure.
 */
export interface DecisionCosts {
  /** A: approving an abusive event. */
  approvedAbuse: number;
  /** D: declining a good customer's event. */
  declinedGood: number;
  /** R: one manual review. */
  review: number;
}

/** The event field holding the value the economics need (orders: the order's; returns: the returned line's). */
export const VALUE_FIELDS: Readonly<Partial<Record<EventType, string>>> = {
  order: 'orderValue',
  return: 'itemValue',
};

export function decisionCosts(
  eventType: EventType,
  settings: DecisionSettings,
  value: number,
): DecisionCosts {
  // A chargeback loses the goods and the fee; a declined good order loses the sale's margin.
  const order = eventType === 'order';
  return {
    approvedAbuse: order
      ? value + (settings.chargebackFee ?? 0)
      : eventType === 'return'
        ? (settings.abusiveReturnLossShare ?? 0) * value
        : (settings.abusiveAccountCost ?? 0),
    declinedGood: order ? (settings.grossMargin ?? 0) * value : (settings.goodCustomerDeclineCost ?? 0),
    review: settings.reviewCost,
  };
}

/** Probabilities (0-1) where the cheapest decision changes. */
export interface EconomicCuts {
  /** DECLINE from here. */
  decline: number;
  /** REVIEW in [from, to), when a review is available and cheaper than both somewhere. */
  review?: { from: number; to: number };
}

export function economicCuts(costs: DecisionCosts, reviewAvailable: boolean): EconomicCuts {
  const { approvedAbuse: a, declinedGood: d, review: r } = costs;
  // Nothing lost either way (A = D = 0): approve.
  const decline = a + d > 0 ? d / (a + d) : 1;
  if (!reviewAvailable || a <= 0 || d <= 0 || r >= (a * d) / (a + d)) return { decline };
  const review = { from: r / a, to: 1 - r / d };
  return { decline: Math.max(decline, review.to), review };
}

/** The smallest integer score at or above a probability (a hair of tolerance for float noise). */
export const scoreAtOrAbove = (p: number) => Math.min(100, Math.max(0, Math.ceil(p * 100 - 1e-9)));

/**
 * The guard's floors while nothing better is known (the default model before the merchant's
 * good-customer shares can be measured): a calibrated score of 50 says abuse is as likely as not, so
 * declining below it declines more good events than bad; reviewing below 30 fills the queue with
 * them. Trained versions may not choose lower ones either (learning/evaluation.ts).
 */
export const DEFAULT_GUARD_FLOORS: Readonly<ModelThresholds> = { declineAt: 50, reviewAt: 30 };

/** The good-customer guard's floors as computed for one model and budget (off the decision path). */
export interface GuardFloors extends ModelThresholds {
  modelVersion: string;
  budget: Pick<DecisionSettings, 'maxGoodDeclinedShare' | 'maxGoodReviewedShare'>;
}

/**
 * The floors in force for a model: those computed for it under the merchant's current budget (the
 * stored guard itself is returned); else a trained version's own thresholds (chosen on its holdout by
 * the budget); else the default floors.
 */
export function floorsFor(
  model: ScoringModel,
  settings: DecisionSettings,
  guard: GuardFloors | undefined,
): ModelThresholds {
  return guard?.modelVersion === model.version &&
    guard.budget.maxGoodDeclinedShare === settings.maxGoodDeclinedShare &&
    guard.budget.maxGoodReviewedShare === settings.maxGoodReviewedShare
    ? guard
    : (model.thresholds ?? DEFAULT_GUARD_FLOORS);
}

/** The thresholds of one event, and what they came from (the reason words them). */
export interface EventThresholds extends ModelThresholds {
  value: number;
  costs: DecisionCosts;
  cuts: EconomicCuts;
}

export function decisionThresholds(
  costs: DecisionCosts,
  reviewAvailable: boolean,
  floors: ModelThresholds,
  value = 0,
): EventThresholds {
  const cuts = economicCuts(costs, reviewAvailable);
  const declineAt = Math.max(scoreAtOrAbove(cuts.decline), floors.declineAt);
  const reviewAt = cuts.review
    ? Math.min(declineAt, Math.max(scoreAtOrAbove(cuts.review.from), floors.reviewAt))
    : declineAt;
  return { declineAt, reviewAt, value, costs, cuts };
}

/** What decide() needs to set one event's thresholds: the merchant's settings, capacity and guard. */
export interface ThresholdPolicy {
  settings: DecisionSettings;
  /** Reviews opened today are below the capacity per day. */
  reviewCapacityLeft: boolean;
  guard?: GuardFloors | undefined;
}

export function thresholdsForEvent(
  eventType: EventType,
  model: ScoringModel,
  workflowCanReview: boolean,
  fields: Readonly<Record<string, FieldValue>>,
  policy: ThresholdPolicy,
): EventThresholds {
  const valueField = VALUE_FIELDS[eventType];
  const value = valueField ? Math.max(0, Number(fields[valueField]) || 0) : 0;
  return decisionThresholds(
    decisionCosts(eventType, policy.settings, value),
    workflowCanReview && policy.reviewCapacityLeft,
    floorsFor(model, policy.settings, policy.guard),
    value,
  );
}

const percent = (p: number) => String(Math.round(p * 100));
const amount = (x: number) => String(Number(x.toFixed(2)));

/** Orders name their margin, returns the share lost of the line, accounts the cost of one. */
function economicsInWords(eventType: EventType, settings: DecisionSettings, t: EventThresholds): string {
  if (eventType === 'order') return `at a ${percent(settings.grossMargin ?? 0)} % margin`;
  if (eventType === 'return')
    return `losing ${percent(settings.abusiveReturnLossShare ?? 0)} % of ${amount(t.value)} to abuse`;
  return `at ${amount(t.costs.approvedAbuse)} per abusive account`;
}

/**
 * The economics of a DECLINE or REVIEW taken at these thresholds, in words, e.g. "78 % likely
 * abusive; at a 30 % margin, approving costs more than declining above 23 %", with the guard named
 * when it raised the threshold that decided.
 */
export function thresholdReason(
  eventType: EventType,
  settings: DecisionSettings,
  t: EventThresholds,
  decision: 'DECLINE' | 'REVIEW',
  abuseScore: number,
): string {
  const guard = (threshold: number, cut: number) =>
    threshold > scoreAtOrAbove(cut) ? ` (good-customer guard: ${threshold} %)` : '';
  const lead = `${abuseScore} % likely abusive`;
  const { review } = t.cuts;
  const reviewCost = amount(t.costs.review);
  if (decision === 'REVIEW' && review)
    return `${lead}; a review (${reviewCost}) costs less than approving or declining between ${percent(review.from)} % and ${percent(review.to)} %${guard(t.reviewAt, review.from)}`;
  if (review)
    return `${lead}; above ${percent(t.cuts.decline)} % declining costs less than a review (${reviewCost})${guard(t.declineAt, t.cuts.decline)}`;
  return `${lead}; ${economicsInWords(eventType, settings, t)}, approving costs more than declining above ${percent(t.cuts.decline)} %${guard(t.declineAt, t.cuts.decline)}`;
}
