import type { EventType } from '../contract/endpoints.ts';
import type { DecisionOutcome } from '../schemas/decision.ts';
import type { DecisionSettings } from '../scoring/decision-settings.ts';
import { decisionCosts, decisionThresholds, type EventThresholds } from '../scoring/decision-thresholds.ts';
import type { ModelThresholds } from '../scoring/model.ts';

/**
 * The trade-off of a threshold: for every threshold 0-100, over labeled events, the share of abuse
 * caught (not approved), the shares of good events declined and reviewed, and the expected cost at
 * the merchant's economics (abuse approved costs A, a good event declined D, a review R; each
 * event's own value where the economics need one). Pure; figures are weighted by each row's weight
 * (1, or how many good events a sampled holdout row stands for).
 */
export interface TradeoffRow {
  score: number;
  label: 0 | 1;
  value: number;
  weight: number;
}

/**
 * Labelled decisions counted by score, label and value (lake/tradeoff-histogram.ts counts them from
 * the lake): each cell becomes a TradeoffRow weighing the parts it counts.
 */
export interface TradeoffHistogram {
  /** When it was computed (ISO 8601), and the window's first day (UTC, yyyy-mm-dd). */
  computedAt: string;
  from: string;
  /** The clock labels were read at: the merchant's latest event (ISO 8601), absent without events. */
  labelledAsOf?: string;
  /** Settled parts as [score, label, mean value of the cell, parts]. */
  cells: [number, 0 | 1, number, number][];
  /** Parts without a settled label yet (window open) and declines never observed (censored). */
  excluded: { unlabeled: number; censored: number };
}

interface TradeoffFigures {
  /** Share of abusive events declined or reviewed. */
  caught: number;
  goodDeclined: number;
  goodReviewed: number;
  /** Expected cost over these events, in the merchant's currency. */
  cost: number;
}

interface TradeoffPoint extends TradeoffFigures {
  threshold: number;
}

interface Spread {
  min: number;
  median: number;
  max: number;
}

export interface TradeoffCurves {
  events: number;
  abusive: number;
  good: number;
  /**
   * DECLINE from each threshold; REVIEW, where the type's workflow can review, from each event's
   * live REVIEW threshold up to it (a workflow with `abuseScore >= N` for DECLINE and the default
   * REVIEW rule).
   */
  decline: TradeoffPoint[];
  /**
   * REVIEW from each threshold up to each event's live DECLINE threshold (the default DECLINE rule and
   * `abuseScore >= N` for REVIEW); absent when the workflow cannot review.
   */
  review?: TradeoffPoint[];
  /** Each event's live thresholds under the current settings (they vary with value), and their figures. */
  live: { declineAt: Spread; reviewAt: Spread } & TradeoffFigures;
}

const THRESHOLDS = Array.from({ length: 101 }, (_, t) => t);

interface Priced {
  row: TradeoffRow;
  live: EventThresholds;
}

export function tradeoffCurves(
  eventType: EventType,
  rows: readonly TradeoffRow[],
  settings: DecisionSettings,
  floors: ModelThresholds,
  canReview: boolean,
): TradeoffCurves {
  const priced: Priced[] = rows.map((row) => ({
    row,
    live: decisionThresholds(decisionCosts(eventType, settings, row.value), canReview, floors, row.value),
  }));
  const abusive = sum(rows.filter((r) => r.label === 1));
  const good = sum(rows.filter((r) => r.label === 0));
  const figures = (outcome: (event: Priced) => DecisionOutcome): TradeoffFigures => {
    let caught = 0;
    let declined = 0;
    let reviewed = 0;
    let cost = 0;
    for (const event of priced) {
      const { label, weight } = event.row;
      const decided = outcome(event);
      const { costs } = event.live;
      if (decided === 'REVIEW') cost += weight * costs.review;
      if (label === 1) {
        if (decided === 'APPROVE') cost += weight * costs.approvedAbuse;
        else caught += weight;
      } else if (decided === 'DECLINE') {
        declined += weight;
        cost += weight * costs.declinedGood;
      } else if (decided === 'REVIEW') reviewed += weight;
    }
    return {
      caught: share(caught, abusive),
      goodDeclined: share(declined, good),
      goodReviewed: share(reviewed, good),
      cost: round2(cost),
    };
  };
  const reviews = (event: Priced) => event.live.cuts.review !== undefined;
  const decline = THRESHOLDS.map((threshold) => ({
    threshold,
    ...figures(({ row, live }) =>
      row.score >= threshold
        ? 'DECLINE'
        : reviews({ row, live }) && row.score >= live.reviewAt
          ? 'REVIEW'
          : 'APPROVE',
    ),
  }));
  const review = canReview
    ? THRESHOLDS.map((threshold) => ({
        threshold,
        ...figures(({ row, live }) =>
          row.score >= live.declineAt ? 'DECLINE' : row.score >= threshold ? 'REVIEW' : 'APPROVE',
        ),
      }))
    : undefined;
  return {
    events: Math.round(abusive + good),
    abusive: Math.round(abusive),
    good: Math.round(good),
    decline,
    ...(review ? { review } : {}),
    live: {
      declineAt: spread(priced.map((e) => e.live.declineAt)),
      reviewAt: spread(priced.map((e) => e.live.reviewAt)),
      ...figures(({ row, live }) =>
        row.score >= live.declineAt ? 'DECLINE' : row.score >= live.reviewAt ? 'REVIEW' : 'APPROVE',
      ),
    },
  };
}

/** Min, median and max; the type's thresholds without any value to vary them when there are no rows. */
function spread(values: readonly number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return { min: 0, median: 0, max: 0 };
  return { min: sorted[0]!, median: sorted[Math.floor((sorted.length - 1) / 2)]!, max: sorted.at(-1)! };
}

const sum = (rows: readonly TradeoffRow[]) => rows.reduce((total, r) => total + r.weight, 0);
const share = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 1e4) / 1e4 : 0);
const round2 = (x: number) => Math.round(x * 100) / 100;
