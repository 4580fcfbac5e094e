import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../eval/random.ts';
import { chooseThresholds, evaluateScores, type Scored } from '../../shared/learning/evaluation.ts';
import type { LabeledRow } from '../../shared/learning/labels.ts';
import { sigmoid } from '../../shared/learning/logistic.ts';
import { keepSampledNegatives } from '../../shared/learning/sampling.ts';
import {
  fitModel,
  promotionVerdict,
  scoredBy,
  scoreThresholds,
  TrainingError,
  timeFolds,
  trainModelVersion,
} from '../../shared/learning/train.ts';
import type { ScoringModel } from '../../shared/scoring/model.ts';
import { DEFAULT_MODEL_THRESHOLDS } from '../../shared/scoring/models.ts';
import { DEFAULT_WORKFLOWS } from '../../shared/scoring/workflow.ts';

const TRUE_MODEL = { bias: -2.5, weights: { sharedCard: 1.8, ordersLastHour: 0.7, returningCustomer: -1.2 } };
const DEFAULT_MODEL: ScoringModel = {
  eventType: 'order',
  version: 'order-default.1',
  bias: -3,
  weights: { sharedCard: 0.5, ordersLastHour: 0.2, returningCustomer: 0 },
};
const START = Date.UTC(2026, 0, 1);

/** Rows whose labels are drawn from TRUE_MODEL, one per hour from START. */
function syntheticRows(count: number, seed: number, offset = 0): LabeledRow[] {
  const random = new SeededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const signals = {
      sharedCard: random.chance(0.15) ? 1 : 0,
      ordersLastHour: random.int(0, 4),
      returningCustomer: random.chance(0.5) ? 1 : 0,
    };
    const logOdds =
      TRUE_MODEL.bias +
      TRUE_MODEL.weights.sharedCard * signals.sharedCard +
      TRUE_MODEL.weights.ordersLastHour * signals.ordersLastHour +
      TRUE_MODEL.weights.returningCustomer * signals.returningCustomer;
    const label = random.chance(sigmoid(logOdds)) ? 1 : 0;
    return {
      eventKey: `M#m#ORDER#o${offset + i}`,
      part: 0,
      at: START + (offset + i) * 3_600_000,
      signals,
      abuseScore: 0,
      modelVersion: DEFAULT_MODEL.version,
      label,
      weight: 1,
      rule: label ? 'lost_chargeback' : 'no_abuse_in_window',
    };
  });
}

const options = {
  merchantId: 'm_1',
  eventType: 'order' as const,
  defaultModel: DEFAULT_MODEL,
  activeModel: DEFAULT_MODEL,
  workflow: DEFAULT_WORKFLOWS.order,
  now: START + 40_000 * 3_600_000,
};

describe('training', () => {
  it('recovers known weights from 20,000 synthetic events', () => {
    const fitted = fitModel(syntheticRows(20_000, 1), options);
    expect(fitted.bias).toBeCloseTo(TRUE_MODEL.bias, 0);
    expect(Math.abs(fitted.bias - TRUE_MODEL.bias)).toBeLessThan(0.15);
    for (const [signal, weight] of Object.entries(TRUE_MODEL.weights)) {
      expect(Math.abs((fitted.weights[signal] ?? 0) - weight), signal).toBeLessThan(0.15);
    }
  });

  it('is calibrated: on held-out events every decile is within 5 points of the observed share', () => {
    const fitted = fitModel(syntheticRows(20_000, 2), options);
    const figures = evaluateScores(scoredBy(fitted, syntheticRows(20_000, 3, 20_000)), []);
    expect(figures.calibration).toHaveLength(10);
    for (const bin of figures.calibration)
      expect(Math.abs(bin.predicted - bin.observed)).toBeLessThanOrEqual(5);
  });

  it('stays calibrated when negatives are sampled: the bias is corrected by ln(rate)', () => {
    const rate = 0.25;
    const rows = syntheticRows(30_000, 4);
    const sampled = keepSampledNegatives(rows, rate, 'seed');
    const negatives = (of: typeof rows) => of.filter((r) => r.label === 0).length;
    expect(negatives(sampled)).toBeLessThan(0.3 * negatives(rows));
    const fitted = fitModel(sampled, { ...options, negativeSamplingRate: rate });
    const figures = evaluateScores(scoredBy(fitted, syntheticRows(20_000, 5, 30_000)), []);
    for (const bin of figures.calibration)
      expect(Math.abs(bin.predicted - bin.observed)).toBeLessThanOrEqual(5);
  });

  it('shrinks toward the default: no labels give the default, a few stay near it, many move away', () => {
    expect(fitModel([], options)).toEqual({ bias: DEFAULT_MODEL.bias, weights: DEFAULT_MODEL.weights });
    const distance = (fitted: { weights: Record<string, number> }) =>
      Math.abs((fitted.weights.returningCustomer ?? 0) - (DEFAULT_MODEL.weights.returningCustomer ?? 0));
    const few = distance(fitModel(syntheticRows(10, 6), options));
    const many = distance(fitModel(syntheticRows(20_000, 6), options));
    expect(few).toBeLessThan(0.3);
    expect(many).toBeGreaterThan(1);
  });

  it('is deterministic: the same rows give the same version, byte for byte', () => {
    const rows = syntheticRows(3_000, 8);
    const first = trainModelVersion(rows, options);
    const second = trainModelVersion([...rows].reverse(), options);
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(first.version).toMatch(/^order-m_1-\d{8}-[0-9a-f]{8}$/);
    expect(first.trainedOn).toEqual({ events: 3_000, positives: rows.filter((r) => r.label === 1).length });
  });

  it('evaluates on the newest 40 % in two rolling folds beside the active model and judges promotion', () => {
    const rows = syntheticRows(5_000, 9);
    const version = trainModelVersion(rows, options);
    const { holdout, candidate, active, promotion } = version.evaluation;
    expect(holdout.events).toBe(2_000);
    expect(holdout.from).toBe(new Date(START + 3_000 * 3_600_000).toISOString());
    expect(candidate.events).toBe(2_000);
    expect(active.version).toBe(DEFAULT_MODEL.version);
    expect(candidate.rocAuc).toBeGreaterThan(0.75);
    expect(candidate.thresholds.map((t) => t.rule)).toEqual(['high_abuse_score']);
    // The default under-scores everything; the trained model is at least as good and calibrated.
    expect(candidate.calibrationError).toBeLessThan(active.calibrationError);
    expect(promotion).toEqual({ promotable: true, reasons: ['not worse than the active model'] });
  });

  it("chooses the version's thresholds on the holdout's out-of-sample scores and reads its rules at them", () => {
    const rows = syntheticRows(5_000, 9);
    const version = trainModelVersion(rows, options);
    const ordered = [...rows].sort((a, b) => a.at - b.at);
    const outOfSample = timeFolds(ordered, 0.4, 2).flatMap((fold) =>
      scoredBy(fitModel(fold.train, options), fold.test),
    );
    expect(version.thresholds).toEqual(chooseThresholds(outOfSample, { declineAt: 85, reviewAt: 85 }));
    const [decline] = version.evaluation.candidate.thresholds;
    expect(decline).toMatchObject({ rule: 'high_abuse_score', threshold: version.thresholds.declineAt });
    expect(decline!.falsePositiveRate).toBeLessThanOrEqual(0.005);
    // The active (default) model is read at its own threshold, the default workflow's 85.
    expect(version.evaluation.active.thresholds[0]!.threshold).toBe(85);
    // The holdout it kept (for the trade-off report) holds those scores: under 2,000, all of them,
    // and choosing again from it gives the same thresholds.
    const kept = version.evaluation.holdoutRows!;
    expect(kept).toMatchObject({ goodWeight: 1 });
    expect(kept.rows).toHaveLength(outOfSample.length);
    const keptScores = kept.rows.map(([score, label]) => ({ probability: score / 100, label }));
    expect(chooseThresholds(keptScores, { declineAt: 85, reviewAt: 85 })).toEqual(version.thresholds);
  });

  it('holds out the newest settled rows: provisional positives are never judged on', () => {
    // 1,000 settled hourly rows, then 300 newer positives whose label window is still open.
    const settled = syntheticRows(1_000, 12);
    const provisional = syntheticRows(300, 13, 1_000).map((r) => ({
      ...r,
      label: 1 as const,
      provisional: true as const,
    }));
    const ordered = [...settled, ...provisional];
    const [older, newer, ...none] = timeFolds(ordered, 0.4, 2);
    expect(none).toEqual([]);
    expect(older).toEqual({ train: settled.slice(0, 600), test: settled.slice(600, 800) });
    expect(newer).toEqual({ train: settled.slice(0, 800), test: settled.slice(800) });
    const version = trainModelVersion(ordered, options);
    const settledPositives = settled.slice(600).filter((r) => r.label === 1).length;
    expect(version.evaluation.holdout).toMatchObject({ events: 400, positives: settledPositives });
    // The version kept still learns from every usable row, provisional positives included.
    expect(version.trainedOn).toEqual({
      events: 1_300,
      positives: 300 + settled.filter((r) => r.label === 1).length,
    });
  });

  it('chooses thresholds: at most 0.5 % of good events declined, 2 % reviewed, never below 50 and 30', () => {
    const at = (score: number, count: number, label: 0 | 1 = 0): Scored[] =>
      Array.from({ length: count }, () => ({ probability: score / 100, label }));
    const fallback = { declineAt: 85, reviewAt: 55 };
    // 1,000 good events: 5 may be declined and 20 reviewed.
    const good = [...at(10, 960), ...at(40, 30), ...at(70, 5), ...at(90, 5)];
    expect(chooseThresholds(good, fallback)).toEqual({ declineAt: 71, reviewAt: 41 });
    // Abusive events do not move them: they are chosen on the good ones.
    expect(chooseThresholds([...good, ...at(60, 500, 1)], fallback)).toEqual({ declineAt: 71, reviewAt: 41 });
    expect(chooseThresholds(at(5, 1_000), fallback)).toEqual({ declineAt: 50, reviewAt: 30 });
    // Even 100 would decline too many good events: nothing is declined.
    expect(chooseThresholds(at(100, 1_000), fallback).declineAt).toBe(101);
  });

  it('keeps the fallback for a share too few good events can measure (200 for 0.5 %, 50 for 2 %)', () => {
    const good = (count: number): Scored[] =>
      Array.from({ length: count }, () => ({ probability: 0.05, label: 0 }));
    const fallback = { declineAt: 85, reviewAt: 55 };
    expect(chooseThresholds(good(199), fallback)).toEqual({ declineAt: 85, reviewAt: 30 });
    expect(chooseThresholds(good(49), fallback)).toEqual(fallback);
    expect(chooseThresholds(good(200), fallback)).toEqual({ declineAt: 50, reviewAt: 30 });
  });

  it('raises an unmeasurable threshold above every good event the fallback would flag', () => {
    const good = (score: number, count: number): Scored[] =>
      Array.from({ length: count }, () => ({ probability: score / 100, label: 0 }));
    const fallback = { declineAt: 85, reviewAt: 55 };
    // 40 good events: too few for 2 %, so none may be reviewed; one scored 82 moves REVIEW above it.
    expect(chooseThresholds([...good(5, 39), ...good(82, 1)], fallback)).toEqual({
      declineAt: 85,
      reviewAt: 83,
    });
    // Too few for 0.5 % as well: one at 90 moves DECLINE to 91, and REVIEW with it (it would review it).
    expect(chooseThresholds([...good(5, 39), ...good(90, 1)], fallback)).toEqual({
      declineAt: 91,
      reviewAt: 91,
    });
    expect(chooseThresholds([...good(5, 39), ...good(100, 1)], fallback).declineAt).toBe(101);
  });

  it('refuses a candidate that ranks worse than the active model', () => {
    const rows = syntheticRows(5_000, 10);
    const good = evaluateScores(
      scoredBy(TRUE_MODEL, rows),
      scoreThresholds(DEFAULT_WORKFLOWS.order, DEFAULT_MODEL_THRESHOLDS.order),
    );
    const inverted = { bias: 0, weights: { sharedCard: -2, ordersLastHour: -1, returningCustomer: 1 } };
    const bad = evaluateScores(
      scoredBy(inverted, rows),
      scoreThresholds(DEFAULT_WORKFLOWS.order, DEFAULT_MODEL_THRESHOLDS.order),
    );
    const verdict = promotionVerdict(bad, good);
    expect(verdict.promotable).toBe(false);
    expect(verdict.reasons.join('; ')).toMatch(/PR AUC .* below/);
  });

  it('refuses a candidate that catches less at a workflow threshold, however well it ranks', () => {
    const rows = syntheticRows(5_000, 10);
    const thresholds = scoreThresholds(DEFAULT_WORKFLOWS.order, DEFAULT_MODEL_THRESHOLDS.order);
    const active = evaluateScores(scoredBy(TRUE_MODEL, rows), thresholds);
    // Same ranking, every probability a third lower: no better or worse AUC, fewer events flagged.
    const timid = evaluateScores(
      scoredBy(TRUE_MODEL, rows).map((s) => ({ ...s, probability: s.probability / 3 })),
      thresholds,
    );
    expect(timid.rocAuc).toBe(active.rocAuc);
    expect(active.thresholds[0]!.recall).toBeGreaterThan(timid.thresholds[0]!.recall + 0.05);
    const verdict = promotionVerdict(timid, active);
    expect(verdict.promotable).toBe(false);
    expect(verdict.reasons.join('; ')).toMatch(/high_abuse_score catches .* of abusive events/);
  });

  it('refuses a candidate whose REVIEW rule flags more than 2.5 % of good events', () => {
    const rows = syntheticRows(5_000, 10);
    const review = [{ rule: 'elevated_abuse_score', decision: 'REVIEW', threshold: 20 }];
    const active = evaluateScores(scoredBy(TRUE_MODEL, rows), [{ ...review[0]!, threshold: 95 }]);
    const eager = evaluateScores(scoredBy(TRUE_MODEL, rows), review);
    expect(eager.thresholds[0]!.falsePositiveRate).toBeGreaterThan(0.025);
    const verdict = promotionVerdict(eager, active);
    expect(verdict.promotable).toBe(false);
    expect(verdict.reasons.join('; ')).toMatch(/elevated_abuse_score declines or reviews .* of good events/);
  });

  it('does not judge a REVIEW rule on fewer than 114 good events (2 % shown with 90 % confidence)', () => {
    const review = [{ rule: 'elevated_abuse_score', decision: 'REVIEW', threshold: 60 }];
    const scored = (good: number): Scored[] => [
      ...Array.from({ length: 20 }, () => ({ probability: 0.9, label: 1 as const })),
      ...Array.from({ length: good }, () => ({ probability: 0.1, label: 0 as const })),
    ];
    const few = evaluateScores(scored(113), review);
    expect(few.thresholds[0]!.falsePositiveRate).toBe(0);
    expect(promotionVerdict(few, few)).toEqual({
      promotable: false,
      reasons: [
        'elevated_abuse_score: 113 good events in the holdout cannot show it reviews at most 2 % of them (114 needed)',
      ],
    });
    const enough = evaluateScores(scored(114), review);
    expect(promotionVerdict(enough, enough).promotable).toBe(true);
  });

  it('refuses a candidate that would approve what the live model declined unobserved', () => {
    const rows = syntheticRows(5_000, 10);
    const figures = evaluateScores(
      scoredBy(TRUE_MODEL, rows),
      scoreThresholds(DEFAULT_WORKFLOWS.order, DEFAULT_MODEL_THRESHOLDS.order),
    );
    expect(promotionVerdict(figures, figures, { events: 40, stillDeclined: 38 }).promotable).toBe(true);
    expect(promotionVerdict(figures, figures, { events: 40, stillDeclined: 37 })).toEqual({
      promotable: false,
      reasons: [
        'declines 37 of 40 events the live model declined that got no feedback (outcome never observable)',
      ],
    });
  });

  it('scores the censored declines from the holdout on with the fold candidates, never fitting them', () => {
    const rows = syntheticRows(5_000, 9);
    const censored = syntheticRows(400, 14).map((r, i) => ({
      eventKey: `M#m#ORDER#declined${i}`,
      part: 0,
      // Every 12 hours across the timeline: the newer half falls in the holdout (from row 3,000 on).
      at: START + i * 12 * 3_600_000,
      signals: { ...r.signals, sharedCard: 1 },
    }));
    const plain = trainModelVersion(rows, options);
    const version = trainModelVersion(rows, { ...options, censored });
    expect(version.bias).toBe(plain.bias);
    expect(version.weights).toEqual(plain.weights);
    const inHoldout = censored.filter((r) => r.at >= Date.parse(plain.evaluation.holdout.from!)).length;
    expect(inHoldout).toBeGreaterThan(100);
    expect(version.evaluation.censoredDeclines.events).toBe(inHoldout);
    // Each is scored by the candidate of the fold it falls in, at the version's DECLINE threshold.
    const folds = timeFolds(
      [...rows].sort((x, y) => x.at - y.at),
      0.4,
      2,
    );
    const expected = folds
      .map((fold, k) => {
        const until = folds[k + 1]?.test[0]?.at ?? Number.POSITIVE_INFINITY;
        const scores = scoredBy(
          fitModel(fold.train, options),
          censored
            .filter((r) => r.at >= fold.test[0]!.at && r.at < until)
            .map((r) => ({ ...rows[0]!, signals: r.signals })),
        );
        return scores.filter((x) => Math.round(x.probability * 100) >= version.thresholds.declineAt).length;
      })
      .reduce((sum, n) => sum + n, 0);
    expect(version.evaluation.censoredDeclines.stillDeclined).toBe(expected);
  });

  it('does not judge a candidate on a holdout with fewer than 10 abusive events', () => {
    const rows = syntheticRows(5_000, 10);
    const figures = evaluateScores(
      scoredBy(TRUE_MODEL, rows),
      scoreThresholds(DEFAULT_WORKFLOWS.order, DEFAULT_MODEL_THRESHOLDS.order),
    );
    const fewPositives = { ...figures, positives: 9 };
    expect(promotionVerdict(fewPositives, figures)).toEqual({
      promotable: false,
      reasons: ['the holdout has 9 abusive events; at least 10 are needed to judge'],
    });
    expect(promotionVerdict({ ...figures, positives: 1 }, figures).reasons).toEqual([
      'the holdout has 1 abusive event; at least 10 are needed to judge',
    ]);
    expect(promotionVerdict({ ...figures, positives: 10 }, figures).promotable).toBe(true);
  });

  it.each([
    ['no labels', [], 'no_labels'],
    ['only positives', syntheticRows(50, 11).map((r) => ({ ...r, label: 1 as const })), 'only_positives'],
    ['only negatives', syntheticRows(50, 11).map((r) => ({ ...r, label: 0 as const })), 'only_negatives'],
  ])('refuses to train with %s', (_name, rows, code) => {
    expect(() => trainModelVersion(rows, options)).toThrow(TrainingError);
    try {
      trainModelVersion(rows, options);
    } catch (error) {
      expect((error as TrainingError).code).toBe(code);
    }
  });
});

describe('keepSampledNegatives', () => {
  it('keeps every positive and the same negatives whatever the row order, about the rate of them', () => {
    const rows = syntheticRows(5_000, 12);
    const a = keepSampledNegatives(rows, 0.5, 's');
    const b = keepSampledNegatives([...rows].reverse(), 0.5, 's');
    const positives = rows.filter((r) => r.label === 1).length;
    expect(a.filter((r) => r.label === 1)).toHaveLength(positives);
    expect(new Set(a.map((r) => r.eventKey))).toEqual(new Set(b.map((r) => r.eventKey)));
    expect(Math.abs(a.length - positives - 0.5 * (5_000 - positives))).toBeLessThan(150);
  });
});
