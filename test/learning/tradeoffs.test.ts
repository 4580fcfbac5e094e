import { describe, expect, it } from 'vitest';
import {
  allowedGoodEvents,
  type GoodCustomerBudget,
  goodEventsToMeasure,
  measuredFloors,
  type Scored,
} from '../../shared/learning/evaluation.ts';
import type { LabeledRow } from '../../shared/learning/labels.ts';
import { type TradeoffRow, tradeoffCurves } from '../../shared/learning/tradeoffs.ts';
import { keptHoldout, MAX_KEPT_HOLDOUT_ROWS } from '../../shared/learning/train.ts';
import { DEFAULT_BUDGET, DEFAULT_SETTINGS, settingsFor } from '../../shared/scoring/decision-settings.ts';

const at = (score: number, count: number, label: 0 | 1 = 0): Scored[] =>
  Array.from({ length: count }, () => ({ probability: score / 100, label }));

describe('allowedGoodEvents: how many good events a floor may leave above it, with 90 % confidence', () => {
  it.each<[number, number, number | undefined]>([
    // Binomial(1,000, 0.5 %): P(X <= 1) = 0.040, P(X <= 2) = 0.124.
    [1_000, 0.005, 1],
    [1_000, 0.02, 13],
    [1_000, 0.05, 40],
    // 0.98^113 = 0.102: even none above cannot show 2 % yet; 0.98^114 = 0.0999 can.
    [113, 0.02, undefined],
    [114, 0.02, 0],
    [459, 0.005, undefined],
    [460, 0.005, 0],
    // Large samples: no underflow (0.98^20,000 is below the smallest double).
    [20_000, 0.02, 374],
    [1_000, 0, undefined],
    [0, 0.02, undefined],
  ])('%i good events, a share of %d: %s', (goodEvents, share, allowed) => {
    expect(allowedGoodEvents(goodEvents, share)).toBe(allowed);
  });

  it('names the fewest good events that can measure a share', () => {
    expect([0.005, 0.02, 1, 0].map(goodEventsToMeasure)).toEqual([460, 114, 1, undefined]);
    // The count it names is the first that allowedGoodEvents measures, for any share.
    for (const share of [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5]) {
      const fewest = goodEventsToMeasure(share) ?? 0;
      expect(allowedGoodEvents(fewest - 1, share)).toBeUndefined();
      expect(allowedGoodEvents(fewest, share)).toBe(0);
    }
  });
});

describe('measuredFloors: the default model’s guard, from the merchant’s good events', () => {
  // 1,000 good events: 1 may score at or above DECLINE, 13 at or above REVIEW (0.5 % and 2 % held with
  // 90 % confidence); the point estimate (5 and 20) would set 71 and 41.
  const good = [...at(10, 960), ...at(40, 30), ...at(70, 5), ...at(90, 5)];
  it.each<[string, Scored[], GoodCustomerBudget, object]>([
    ['within 0.5 % and 2 %, with confidence', good, DEFAULT_BUDGET, { declineAt: 91, reviewAt: 41 }],
    [
      'abusive events do not move them',
      [...good, ...at(60, 500, 1)],
      DEFAULT_BUDGET,
      { declineAt: 91, reviewAt: 41 },
    ],
    // The budget guards, not 50 and 30: good customers all at 5 allow thresholds just above them.
    ['not held to 50 and 30', at(5, 1_000), DEFAULT_BUDGET, { declineAt: 6, reviewAt: 6 }],
    [
      'a wider budget lowers them',
      good,
      { maxGoodDeclinedShare: 0.01, maxGoodReviewedShare: 0.05 },
      { declineAt: 71, reviewAt: 11 },
    ],
    // 199 good events cannot show 0.5 % (460 needed) but can show 2 % (114).
    ['too few for 0.5 %', at(5, 199), DEFAULT_BUDGET, { declineAt: 50, reviewAt: 6 }],
    ['too few for either', at(5, 113), DEFAULT_BUDGET, { declineAt: 50, reviewAt: 30 }],
    [
      'a budget of 0 is never measurable',
      at(5, 1_000),
      { maxGoodDeclinedShare: 0, maxGoodReviewedShare: 0.02 },
      { declineAt: 50, reviewAt: 6 },
    ],
    [
      'every good event at 100: nothing declined',
      at(100, 1_000),
      DEFAULT_BUDGET,
      { declineAt: 101, reviewAt: 101 },
    ],
  ])('%s', (_, scored, budget, expected) => {
    expect(measuredFloors(scored, budget)).toMatchObject(expected);
  });

  it('says which floors were measured', () => {
    expect(measuredFloors(at(5, 113), DEFAULT_BUDGET).measured).toEqual({
      declineAt: false,
      reviewAt: false,
    });
    expect(measuredFloors(at(5, 459), DEFAULT_BUDGET).measured).toEqual({ declineAt: false, reviewAt: true });
    expect(measuredFloors(at(5, 460), DEFAULT_BUDGET).measured).toEqual({ declineAt: true, reviewAt: true });
  });
});

const row = (score: number, label: 0 | 1, value = 100, weight = 1): TradeoffRow => ({
  score,
  label,
  value,
  weight,
});
const NO_FLOORS = { declineAt: 0, reviewAt: 0 };

describe('tradeoffCurves', () => {
  it('orders: shares and the cost of declining from each threshold (A = 100, D = 50)', () => {
    const settings = settingsFor('order', { grossMargin: 0.5, chargebackFee: 0 });
    const rows = [row(80, 1), row(40, 1), row(10, 0), row(60, 0)];
    const curves = tradeoffCurves('order', rows, settings, NO_FLOORS, false);
    expect(curves).toMatchObject({ events: 4, abusive: 2, good: 2 });
    expect(curves.review).toBeUndefined();
    const point = (t: number) => curves.decline[t];
    expect(point(0)).toEqual({ threshold: 0, caught: 1, goodDeclined: 1, goodReviewed: 0, cost: 100 });
    expect(point(11)).toEqual({ threshold: 11, caught: 1, goodDeclined: 0.5, goodReviewed: 0, cost: 50 });
    expect(point(41)).toEqual({ threshold: 41, caught: 0.5, goodDeclined: 0.5, goodReviewed: 0, cost: 150 });
    expect(point(61)).toEqual({ threshold: 61, caught: 0.5, goodDeclined: 0, goodReviewed: 0, cost: 100 });
    expect(point(100)).toEqual({ threshold: 100, caught: 0, goodDeclined: 0, goodReviewed: 0, cost: 200 });
    expect(curves.decline).toHaveLength(101);
    // Live: D / (A + D) = 1/3, DECLINE from 34 for every event (they have the same value).
    expect(curves.live).toEqual({
      declineAt: { min: 34, median: 34, max: 34 },
      reviewAt: { min: 34, median: 34, max: 34 },
      caught: 1,
      goodDeclined: 0.5,
      goodReviewed: 0,
      cost: 50,
    });
  });

  it('returns: the review band moves with each curve (A = 60, D = 40, R = 5: REVIEW 9, DECLINE 88)', () => {
    const rows = [row(95, 1), row(50, 1), row(20, 0), row(5, 0)];
    const curves = tradeoffCurves('return', rows, DEFAULT_SETTINGS.return, NO_FLOORS, true);
    // DECLINE from 90, REVIEW from each event's 9 below it: 50 and 20 reviewed.
    expect(curves.decline[90]).toEqual({
      threshold: 90,
      caught: 1,
      goodDeclined: 0,
      goodReviewed: 0.5,
      cost: 10,
    });
    // REVIEW from 30 up to the live DECLINE at 88: 50 reviewed, 20 and 5 approved.
    expect(curves.review?.[30]).toEqual({
      threshold: 30,
      caught: 1,
      goodDeclined: 0,
      goodReviewed: 0,
      cost: 5,
    });
    // REVIEW from 60: the abusive 50 is approved, losing 60 % of 100.
    expect(curves.review?.[60]).toEqual({
      threshold: 60,
      caught: 0.5,
      goodDeclined: 0,
      goodReviewed: 0,
      cost: 60,
    });
    expect(curves.live).toMatchObject({
      declineAt: { min: 88, median: 88, max: 88 },
      reviewAt: { min: 9, median: 9, max: 9 },
      caught: 1,
      goodReviewed: 0.5,
      cost: 10,
    });
  });

  it('weighs rows (a sampled good row stands for several) and spreads per-event thresholds by value', () => {
    const settings = settingsFor('order', { grossMargin: 0.5, chargebackFee: 0 });
    // Values 10, 100, 1000 with fee 15: cuts 5 / 30 = 16.7 %, 50 / 165 = 30.3 %, 500 / 1515 = 33 %.
    const fee = settingsFor('order', { grossMargin: 0.5, chargebackFee: 15 });
    const spread = tradeoffCurves(
      'order',
      [row(1, 0, 10), row(1, 0, 100), row(1, 0, 1_000)],
      fee,
      NO_FLOORS,
      false,
    );
    expect(spread.live.declineAt).toEqual({ min: 17, median: 31, max: 34 });
    const weighted = tradeoffCurves(
      'order',
      [row(90, 1), row(50, 0, 100, 3), row(10, 0)],
      settings,
      NO_FLOORS,
      false,
    );
    expect(weighted).toMatchObject({ events: 5, abusive: 1, good: 4 });
    expect(weighted.decline[50]).toMatchObject({ goodDeclined: 0.75, cost: 150 });
  });

  it('has no figures to give without labeled events', () => {
    const empty = tradeoffCurves('account', [], DEFAULT_SETTINGS.account, NO_FLOORS, true);
    expect(empty).toMatchObject({ events: 0, abusive: 0, good: 0 });
    expect(empty.decline[50]).toEqual({
      threshold: 50,
      caught: 0,
      goodDeclined: 0,
      goodReviewed: 0,
      cost: 0,
    });
  });
});

describe('keptHoldout: the holdout a version keeps for the trade-off report', () => {
  const labeled = (label: 0 | 1, value: number): LabeledRow => ({
    eventKey: 'e',
    part: 0,
    at: 0,
    signals: {},
    abuseScore: 0,
    modelVersion: 'v',
    value,
    label,
    weight: 1,
    rule: 'no_abuse_in_window',
  });

  it('keeps a small holdout whole, as [score, label, value]', () => {
    const kept = keptHoldout(
      [labeled(1, 20), labeled(0, 30)],
      [
        { probability: 0.9, label: 1 },
        { probability: 0.04, label: 0 },
      ],
    );
    expect(kept).toEqual({
      rows: [
        [90, 1, 20],
        [4, 0, 30],
      ],
      goodWeight: 1,
    });
  });

  it('bounds a large one: every abusive row, good rows evenly spaced by score, each weighing its share', () => {
    const rows = [
      ...Array.from({ length: 10 }, () => labeled(1, 5)),
      ...Array.from({ length: 3_000 }, () => labeled(0, 5)),
    ];
    const scores = rows.map((r, i) => ({
      probability: r.label === 1 ? 0.8 : (i % 100) / 100,
      label: r.label,
    }));
    const kept = keptHoldout(rows, scores);
    expect(kept.rows).toHaveLength(MAX_KEPT_HOLDOUT_ROWS);
    expect(kept.rows.filter((r) => r[1] === 1)).toHaveLength(10);
    expect(kept.goodWeight).toBeCloseTo(3_000 / 1_990, 10);
    // The good scores keep their spread: about as many kept below 50 as at or above it.
    const low = kept.rows.filter((r) => r[1] === 0 && r[0] < 50).length;
    expect(low / 1_990).toBeCloseTo(0.5, 2);
  });
});
