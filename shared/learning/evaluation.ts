import { DEFAULT_BUDGET, type DecisionSettings } from '../scoring/decision-settings.ts';
import { DEFAULT_GUARD_FLOORS } from '../scoring/decision-thresholds.ts';
import type { ModelThresholds } from '../scoring/model.ts';

/**
 * How well predicted probabilities rank and match labeled outcomes. Pure; every figure is unweighted
 * (a pending chargeback counts as a positive here) so the numbers read as plain shares of events.
 */
export interface Scored {
  /** Predicted probability of abuse, 0-1. */
  probability: number;
  label: 0 | 1;
}

/** A workflow threshold on the 0-100 scale (`abuseScore >= threshold` gives `decision`). */
export interface ScoreThreshold {
  rule: string;
  decision: string;
  threshold: number;
}

interface ThresholdFigures extends ScoreThreshold {
  /** Share of abusive events flagged at or above the threshold. */
  recall: number;
  /** Share of flagged events that were abusive (null when nothing is flagged). */
  precision: number | null;
  /** Share of good events flagged: for a DECLINE rule, good customers declined. */
  falsePositiveRate: number;
}

interface CalibrationBin {
  events: number;
  /** Mean predicted score, 0-100. */
  predicted: number;
  /** Observed share of abusive events, 0-100. */
  observed: number;
}

export interface ModelFigures {
  events: number;
  positives: number;
  /** Null when the set holds only one class. */
  rocAuc: number | null;
  /** Average precision; null without positives. */
  prAuc: number | null;
  thresholds: ThresholdFigures[];
  /** Ten bins by predicted probability (fewer when there are fewer events). */
  calibration: CalibrationBin[];
  /** Event-weighted mean |predicted - observed| over the bins, in score points. */
  calibrationError: number;
}

export function evaluateScores(
  scored: readonly Scored[],
  thresholds: readonly ScoreThreshold[],
): ModelFigures {
  const positives = scored.filter((s) => s.label === 1).length;
  return {
    events: scored.length,
    positives,
    rocAuc: rocAuc(scored),
    prAuc: averagePrecision(scored),
    thresholds: thresholds.map((t) => atThreshold(scored, t)),
    ...calibration(scored),
  };
}

/**
 * The merchant's objective (the default good-customer budget, scoring/decision-settings.ts): good
 * events declined at most this often, and reviewed at most this often.
 */
export const MAX_GOOD_DECLINED = DEFAULT_BUDGET.maxGoodDeclinedShare;
export const MAX_GOOD_REVIEWED = DEFAULT_BUDGET.maxGoodReviewedShare;
/**
 * Lowest thresholds a version may choose, the guard's default floors: a calibrated score of 50 says
 * abuse is as likely as not, so declining below it would decline mostly good events; reviewing below
 * 30 would fill the queue with them. A small holdout's few good events cannot show otherwise.
 */
const MIN_DECLINE_AT = DEFAULT_GUARD_FLOORS.declineAt;
const MIN_REVIEW_AT = DEFAULT_GUARD_FLOORS.reviewAt;

export type GoodCustomerBudget = Pick<DecisionSettings, 'maxGoodDeclinedShare' | 'maxGoodReviewedShare'>;

/**
 * A version's own thresholds, read off its scores of good events: DECLINE from the lowest score at
 * which at most 0.5 % of them score at or above it, REVIEW from the lowest score keeping at most 2 %
 * of them between it and the DECLINE threshold; 101 (nothing declined) when even 100 declines too
 * many. A share needs enough good events to be measured (200 for 0.5 %: one of them; 50 for 2 %);
 * with fewer, that threshold is `fallback`'s (the default model's), raised above every good event
 * that scores at or above it: the default's number is on another scale than a calibrated version's
 * (whose scores follow the merchant's abuse rate), and a good event of the holdout flagged at it is
 * already more than the share allows.
 */
export function chooseThresholds(
  scored: readonly Scored[],
  fallback: ModelThresholds,
  budget: GoodCustomerBudget = DEFAULT_BUDGET,
): ModelThresholds {
  const maxDeclined = budget.maxGoodDeclinedShare;
  const maxReviewed = budget.maxGoodReviewedShare;
  const goodScores = scored.filter((s) => s.label === 0).map((s) => toScore(s.probability));
  const atOrAbove = (t: number) => goodScores.filter((score) => score >= t).length;
  // Above every good score at or over `from` (none allowed: too few events to allow a share).
  const aboveGoodFrom = (from: number, below = 101) =>
    Math.min(
      below,
      Math.max(
        from,
        ...goodScores.filter((score) => score >= from && score < below).map((score) => score + 1),
      ),
    );
  const declineAt = measurable(goodScores.length, maxDeclined)
    ? lowestWithin(atOrAbove, maxDeclined * goodScores.length, MIN_DECLINE_AT)
    : aboveGoodFrom(fallback.declineAt);
  if (!measurable(goodScores.length, maxReviewed))
    return { declineAt, reviewAt: aboveGoodFrom(Math.min(fallback.reviewAt, declineAt), declineAt) };
  let reviewAt = declineAt;
  while (
    reviewAt > MIN_REVIEW_AT &&
    atOrAbove(reviewAt - 1) - atOrAbove(declineAt) <= maxReviewed * goodScores.length
  )
    reviewAt--;
  return { declineAt, reviewAt };
}

/** A share needs enough good events to be measured: 200 for 0.5 % (one of them), 50 for 2 %. */
const measurable = (goodEvents: number, share: number) => share > 0 && goodEvents >= Math.round(1 / share);

/** The lowest threshold from `minimum` up at which at most `allowed` good events score at or above it. */
function lowestWithin(atOrAbove: (t: number) => number, allowed: number, minimum: number): number {
  let threshold = 101;
  while (threshold > minimum && atOrAbove(threshold - 1) <= allowed) threshold--;
  return threshold;
}

/** The good-customer guard's floors as measured, and whether each one could be. */
export interface MeasuredFloors extends ModelThresholds {
  measured: { declineAt: boolean; reviewAt: boolean };
}

/**
 * Confidence the default model's measured floors keep the good share within the budget: a floor set
 * where exactly the budget's share of the sample scores above it would exceed the budget on the next
 * events about half the time, and the guard's good samples are small (a hundred good returns).
 */
const GUARD_CONFIDENCE = 0.9;

/**
 * How many of `goodEvents` good events may score at or above a floor while the floor still keeps the
 * good share within `share` with `GUARD_CONFIDENCE`: the largest k for which, were the true share
 * the whole budget, seeing at most k would happen at most 10 % of the time (the one-sided
 * Clopper-Pearson bound); undefined when even none could not show it (too few good events).
 */
export function allowedGoodEvents(goodEvents: number, share: number): number | undefined {
  if (share <= 0 || goodEvents <= 0) return undefined;
  if (share >= 1) return goodEvents;
  const alpha = 1 - GUARD_CONFIDENCE;
  // Binomial(goodEvents, share) from k = 0 up, in logs (0.98^20,000 underflows).
  let logPmf = goodEvents * Math.log1p(-share);
  let cdf = Math.exp(logPmf);
  if (cdf > alpha) return undefined;
  let allowed = 0;
  while (allowed < goodEvents) {
    logPmf += Math.log((goodEvents - allowed) / (allowed + 1)) + Math.log(share / (1 - share));
    const next = cdf + Math.exp(logPmf);
    if (next > alpha) break;
    cdf = next;
    allowed++;
  }
  return allowed;
}

/** The fewest good events that can show a share with the guard's confidence (none of them above). */
export function goodEventsToMeasure(share: number): number | undefined {
  if (share <= 0) return undefined;
  return share >= 1 ? 1 : Math.ceil(Math.log(1 - GUARD_CONFIDENCE) / Math.log1p(-share));
}

/**
 * The guard's floors for the default model, measured on the merchant's labeled events as the
 * default model scores them: DECLINE from the lowest score at which few enough good events score at
 * or above it that the budget's share holds with 90 % confidence (`allowedGoodEvents`); REVIEW
 * likewise for its review share. The review floor counts every good event at or above it, declined
 * ones too, so the reviewed share holds whatever DECLINE threshold the economics set above the floors
 * (they move DECLINE per event). Measured floors are not held to 50 and 30: the budget is the guard,
 * and the economics may decline lower when the merchant's own good customers show it is safe. A share
 * that cannot be measured yet (`goodEventsToMeasure`: 460 good events for 0.5 %, 114 for 2 %) keeps
 * the default floor.
 */
export function measuredFloors(
  scored: readonly (Scored & { count?: number })[],
  budget: GoodCustomerBudget,
): MeasuredFloors {
  // A histogram's cell stands for `count` events of its score (the trade-off histogram's).
  const good = scored
    .filter((s) => s.label === 0)
    .map((s) => ({ score: toScore(s.probability), count: s.count ?? 1 }));
  const goodEvents = good.reduce((n, g) => n + g.count, 0);
  const atOrAbove = (t: number) => good.reduce((n, g) => (g.score >= t ? n + g.count : n), 0);
  const allowedDeclined = allowedGoodEvents(goodEvents, budget.maxGoodDeclinedShare);
  const allowedReviewed = allowedGoodEvents(goodEvents, budget.maxGoodReviewedShare);
  const floor = (allowed: number | undefined, fallback: number) =>
    allowed === undefined ? fallback : lowestWithin(atOrAbove, allowed, 0);
  const declineAt = floor(allowedDeclined, DEFAULT_GUARD_FLOORS.declineAt);
  const reviewAt = Math.min(declineAt, floor(allowedReviewed, DEFAULT_GUARD_FLOORS.reviewAt));
  return {
    declineAt,
    reviewAt,
    measured: { declineAt: allowedDeclined !== undefined, reviewAt: allowedReviewed !== undefined },
  };
}

/** The score an event gets: the same rounding as the live model. */
export const toScore = (probability: number) => Math.min(100, Math.max(0, Math.round(probability * 100)));

/** Probability that a random abusive event outranks a random good one (ties count half). */
function rocAuc(scored: readonly Scored[]): number | null {
  const sorted = [...scored].sort((a, b) => a.probability - b.probability);
  const positives = sorted.filter((s) => s.label === 1).length;
  const negatives = sorted.length - positives;
  if (positives === 0 || negatives === 0) return null;
  // Mann-Whitney U with midranks for ties.
  let rankSum = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j]!.probability === sorted[i]!.probability) j++;
    const midrank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (sorted[k]!.label === 1) rankSum += midrank;
    i = j;
  }
  return round4((rankSum - (positives * (positives + 1)) / 2) / (positives * negatives));
}

/** Area under the precision-recall curve as average precision, tied scores taken as one step. */
function averagePrecision(scored: readonly Scored[]): number | null {
  const sorted = [...scored].sort((a, b) => b.probability - a.probability);
  const positives = sorted.filter((s) => s.label === 1).length;
  if (positives === 0) return null;
  let truePositives = 0;
  let flagged = 0;
  let area = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    let newPositives = 0;
    while (j < sorted.length && sorted[j]!.probability === sorted[i]!.probability) {
      if (sorted[j]!.label === 1) newPositives++;
      j++;
    }
    flagged += j - i;
    truePositives += newPositives;
    area += (newPositives / positives) * (truePositives / flagged);
    i = j;
  }
  return round4(area);
}

function atThreshold(scored: readonly Scored[], t: ScoreThreshold): ThresholdFigures {
  let truePositives = 0;
  let falsePositives = 0;
  let positives = 0;
  for (const s of scored) {
    const flagged = toScore(s.probability) >= t.threshold;
    if (s.label === 1) positives++;
    if (flagged && s.label === 1) truePositives++;
    if (flagged && s.label === 0) falsePositives++;
  }
  const negatives = scored.length - positives;
  const flagged = truePositives + falsePositives;
  return {
    ...t,
    recall: positives === 0 ? 0 : round4(truePositives / positives),
    precision: flagged === 0 ? null : round4(truePositives / flagged),
    falsePositiveRate: negatives === 0 ? 0 : round4(falsePositives / negatives),
  };
}

function calibration(scored: readonly Scored[]): { calibration: CalibrationBin[]; calibrationError: number } {
  const sorted = [...scored].sort((a, b) => a.probability - b.probability);
  const bins: CalibrationBin[] = [];
  const count = Math.min(10, sorted.length);
  let error = 0;
  for (let b = 0; b < count; b++) {
    const slice = sorted.slice(
      Math.floor((b * sorted.length) / count),
      Math.floor(((b + 1) * sorted.length) / count),
    );
    const predicted = (100 * slice.reduce((sum, s) => sum + s.probability, 0)) / slice.length;
    const observed = (100 * slice.filter((s) => s.label === 1).length) / slice.length;
    bins.push({ events: slice.length, predicted: round2(predicted), observed: round2(observed) });
    error += (slice.length * Math.abs(predicted - observed)) / sorted.length;
  }
  return { calibration: bins, calibrationError: round2(error) };
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
const round2 = (x: number) => Math.round(x * 100) / 100;
