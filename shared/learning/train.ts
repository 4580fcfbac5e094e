import { createHash } from 'node:crypto';
import type { EventType } from '../contract/endpoints.ts';
import { plural } from '../plural.ts';
import { type ModelThresholds, type ScoringModel, scoreWithModel } from '../scoring/model.ts';
import { thresholdsOf } from '../scoring/models.ts';
import type { Workflow } from '../scoring/workflow.ts';
import {
  chooseThresholds,
  evaluateScores,
  goodEventsToMeasure,
  MAX_GOOD_DECLINED,
  MAX_GOOD_REVIEWED,
  type ModelFigures,
  type Scored,
  type ScoreThreshold,
  toScore,
} from './evaluation.ts';
import type { CensoredRow, LabeledRow } from './labels.ts';
import { fitLogistic, sigmoid, type WeightedRow } from './logistic.ts';

/**
 * Trains a merchant's model for one event type from labeled rows: L2-regularised logistic regression
 * on the model's signals, with the prior centred on the default model (few labels give the default
 * back, many give the merchant's own weights), evaluated on a time-based holdout beside the active
 * model. Pure and deterministic: the same rows and options give the same version, byte for byte.
 */
export interface ModelVersion extends ScoringModel {
  /** Chosen on the holdout (evaluation.ts chooseThresholds); the default workflows decide with them. */
  thresholds: ModelThresholds;
  merchantId: string;
  /** The default model the prior was centred on. */
  basedOn: string;
  /** Training's "now": the latest event time the merchant had sent. */
  trainedAt: string;
  trainedOn: { events: number; positives: number };
  /** Negatives were kept at this rate; the bias is already corrected for it. */
  negativeSamplingRate: number;
  evaluation: Evaluation;
}

interface Evaluation {
  holdout: { from: string | null; events: number; positives: number };
  /** The holdout as the candidate scored it, bounded (the trade-off report and the guard read it). */
  holdoutRows?: KeptHoldout;
  candidate: ModelFigures;
  active: ModelFigures & { version: string };
  /**
   * Events from the holdout's start on that the live model declined and that got no feedback
   * (censored: never observable), and how many of them the candidate still declines.
   */
  censoredDeclines: CensoredDeclines;
  promotion: PromotionVerdict;
}

/** One holdout event: its out-of-sample score, label and the value the economics weigh. */
type HoldoutRow = [score: number, label: 0 | 1, value: number];

export interface KeptHoldout {
  rows: HoldoutRow[];
  /** How many good events of the holdout each kept good row stands for (1 unless sampled). */
  goodWeight: number;
}

/** Rows kept on a version: enough for shares of 0.5 % and a cost curve, about 40 KB at most. */
export const MAX_KEPT_HOLDOUT_ROWS = 2_000;

export interface CensoredDeclines {
  events: number;
  stillDeclined: number;
}

export interface PromotionVerdict {
  /** Whether the promotion rule holds; `models train --promote` and auto-promotion need it. */
  promotable: boolean;
  reasons: string[];
}

export interface TrainingOptions {
  merchantId: string;
  eventType: EventType;
  /** The default model: the prior's centre and the source of the signal list. */
  defaultModel: ScoringModel;
  /** The model live now (the default or a trained version), compared on the same holdout. */
  activeModel: ScoringModel;
  /**
   * The merchant's workflow: its `abuseScore >= N`, `>= modelDeclineAt` and `>= modelReviewAt` rules
   * are the thresholds reported (the latter two at each model's own thresholds).
   */
  workflow: Workflow;
  now: number;
  /** Share of negatives kept when the rows were sampled (1 = all). */
  negativeSamplingRate?: number;
  /** How strongly each coefficient is pulled toward the default (inverse prior variance). */
  priorPrecision?: number;
  /** Share of the newest settled rows held out for evaluation. */
  holdoutShare?: number;
  /** Consecutive folds the holdout is cut into, each judged by a candidate fitted on older rows. */
  holdoutFolds?: number;
  /** Declined events without feedback (labels.ts classifyEvents): never fitted, kept by promotion. */
  censored?: readonly CensoredRow[];
}

export type TrainingErrorCode = 'no_labels' | 'only_positives' | 'only_negatives';

export class TrainingError extends Error {
  readonly code: TrainingErrorCode;
  constructor(code: TrainingErrorCode, message: string) {
    super(message);
    this.name = 'TrainingError';
    this.code = code;
  }
}

const DEFAULT_PRIOR_PRECISION = 1;
/** The newest 40 % of settled rows, judged in two folds of 20 % (a small merchant's holdout is thin). */
const DEFAULT_HOLDOUT_SHARE = 0.4;
const DEFAULT_HOLDOUT_FOLDS = 2;
/** Ranking may lose this much (noise on a small holdout) and still count as not worse. */
const AUC_TOLERANCE = 0.01;
/** Share of abusive events a candidate may catch less at a workflow threshold (holdout noise). */
const RECALL_TOLERANCE = 0.05;
/** Calibration error (score points) always acceptable. */
const CALIBRATION_TOLERANCE = 10;
/**
 * Fewer abusive events than this in the holdout cannot show a candidate is not worse: one or two
 * positives make AUC a coin toss, and a promoted guess would replace a default that stands on its own.
 */
const MIN_HOLDOUT_POSITIVES = 10;
/**
 * Good events a holdout needs before a REVIEW rule's share of them (2 %) can be judged: as many as
 * the good-customer guard needs to show it with 90 % confidence (114), none of them flagged.
 */
const MIN_GOOD_FOR_REVIEW_SHARE = goodEventsToMeasure(MAX_GOOD_REVIEWED) ?? Number.POSITIVE_INFINITY;

export function trainModelVersion(rows: readonly LabeledRow[], options: TrainingOptions): ModelVersion {
  const { eventType, defaultModel } = options;
  const positives = rows.filter((r) => r.label === 1).length;
  if (rows.length === 0)
    throw new TrainingError(
      'no_labels',
      `no labeled ${eventType} events yet: an event needs feedback or a closed label window`,
    );
  if (positives === 0)
    throw new TrainingError('only_negatives', `no abusive ${eventType} events among ${rows.length} labeled`);
  if (positives === rows.length)
    throw new TrainingError(
      'only_positives',
      `every one of ${rows.length} labeled ${eventType} events is abusive`,
    );

  const ordered = [...rows].sort(
    (a, b) => a.at - b.at || a.eventKey.localeCompare(b.eventKey) || a.part - b.part,
  );
  const folds = timeFolds(
    ordered,
    options.holdoutShare ?? DEFAULT_HOLDOUT_SHARE,
    options.holdoutFolds ?? DEFAULT_HOLDOUT_FOLDS,
  );
  const holdout = folds.flatMap((fold) => fold.test);

  // Each fold's candidate is fitted only on rows older than the fold: its scores are out of sample.
  const foldModels = folds.map((fold) => fitModel(fold.train, options));
  const candidateScores = folds.flatMap((fold, k) => scoredBy(foldModels[k]!, fold.test));
  // The thresholds are read off those scores of the holdout's good events, so they hold for traffic
  // the model has not seen (in-sample scores of good events run low and would decline too many).
  const thresholds = chooseThresholds(candidateScores, thresholdsOf(defaultModel, eventType));
  const candidateThresholds = scoreThresholds(options.workflow, thresholds);
  const candidate = evaluateScores(candidateScores, candidateThresholds);
  // A censored decline from a fold's start on is scored by that fold's candidate (out of sample).
  const declineAt = Math.min(
    ...candidateThresholds.filter((t) => t.decision === 'DECLINE').map((t) => t.threshold),
  );
  const censoredProbabilities = folds.flatMap((fold, k) => {
    const from = fold.test[0]!.at;
    const until = folds[k + 1]?.test[0]?.at ?? Number.POSITIVE_INFINITY;
    return (options.censored ?? [])
      .filter((row) => row.at >= from && row.at < until)
      .map((row) => probabilityOf(foldModels[k]!, row.signals));
  });
  const censoredDeclines: CensoredDeclines = {
    events: Number.isFinite(declineAt) ? censoredProbabilities.length : 0,
    stillDeclined: censoredProbabilities.filter((p) => toScore(p) >= declineAt).length,
  };
  const active = evaluateScores(
    scoredBy(options.activeModel, holdout),
    scoreThresholds(options.workflow, thresholdsOf(options.activeModel, eventType)),
  );
  // The version kept is fitted on every usable row: the newest weeks are the most telling.
  const fitted = fitModel(ordered, options);
  const trainedAt = new Date(options.now).toISOString();
  const content = {
    eventType,
    bias: fitted.bias,
    weights: fitted.weights,
    thresholds,
    basedOn: defaultModel.version,
    trainedAt,
  };
  const digest = createHash('sha256').update(JSON.stringify(content)).digest('hex').slice(0, 8);
  return {
    eventType,
    version: `${eventType}-${options.merchantId}-${trainedAt.slice(0, 10).replaceAll('-', '')}-${digest}`,
    bias: fitted.bias,
    weights: fitted.weights,
    thresholds,
    merchantId: options.merchantId,
    basedOn: defaultModel.version,
    trainedAt,
    trainedOn: { events: rows.length, positives },
    negativeSamplingRate: options.negativeSamplingRate ?? 1,
    evaluation: {
      holdout: {
        from: holdout[0] ? new Date(holdout[0].at).toISOString() : null,
        events: holdout.length,
        positives: candidate.positives,
      },
      holdoutRows: keptHoldout(holdout, candidateScores),
      candidate,
      active: { version: options.activeModel.version, ...active },
      censoredDeclines,
      promotion: promotionVerdict(candidate, active, censoredDeclines),
    },
  };
}

/**
 * The holdout's rows as the candidate scored them, at most MAX_KEPT_HOLDOUT_ROWS: every abusive one
 * (they are few), and the good ones evenly spaced by score when there are more than the rest of the
 * room, so shares of them keep their shape; `goodWeight` says how many each kept one stands for.
 */
export function keptHoldout(holdout: readonly LabeledRow[], scores: readonly Scored[]): KeptHoldout {
  const rows = holdout.map(
    (row, i): HoldoutRow => [toScore(scores[i]!.probability), row.label, row.value ?? 0],
  );
  const abusive = rows.filter((r) => r[1] === 1).slice(0, MAX_KEPT_HOLDOUT_ROWS);
  const good = rows.filter((r) => r[1] === 0).sort((a, b) => a[0] - b[0] || a[2] - b[2]);
  const room = Math.max(1, MAX_KEPT_HOLDOUT_ROWS - abusive.length);
  if (good.length <= room) return { rows: [...abusive, ...good], goodWeight: 1 };
  const kept = Array.from({ length: room }, (_, k) => good[Math.floor((k * good.length) / room)]!);
  return { rows: [...abusive, ...kept], goodWeight: good.length / room };
}

/**
 * Time-based evaluation folds that respect label delay. Only settled rows (label window closed, or a
 * review resolved them) may be judged: a positive is usable at once but its good contemporaries only
 * after their window, so the newest usable rows are mostly abusive. The newest `share` of the settled
 * rows is cut into `folds` consecutive folds; each fold's candidate is fitted on every row older than
 * the fold's first event (rolling origin: nothing fitted on is newer than what it is judged on).
 * Provisional rows after that point are in no fold (the version kept is refitted on all rows).
 */
export function timeFolds(
  /** Sorted by event time. */
  ordered: readonly LabeledRow[],
  share: number,
  folds: number,
): { train: LabeledRow[]; test: LabeledRow[] }[] {
  const settled = ordered.filter((row) => !row.provisional);
  const starts = Array.from({ length: folds }, (_, k) =>
    Math.floor(settled.length * (1 - (share * (folds - k)) / folds)),
  );
  return starts.flatMap((start, k) => {
    const test = settled.slice(start, starts[k + 1] ?? settled.length);
    // Too few rows for every fold: an empty one judges nothing.
    if (test.length === 0) return [];
    return [{ train: ordered.slice(0, ordered.indexOf(test[0]!)), test }];
  });
}

/**
 * Fits bias and weights on the model's signals. Rows are all positives plus negatives kept at
 * `negativeSamplingRate`, so the fit's log-odds are too high by -ln(rate); the prior's bias is moved
 * by the same amount and the fitted bias moved back, which makes the scores calibrated probabilities.
 */
export function fitModel(
  rows: readonly LabeledRow[],
  options: Pick<TrainingOptions, 'defaultModel' | 'negativeSamplingRate' | 'priorPrecision'>,
): Pick<ScoringModel, 'bias' | 'weights'> {
  const { defaultModel } = options;
  const signals = Object.keys(defaultModel.weights);
  const samplingShift = -Math.log(options.negativeSamplingRate ?? 1);
  const precision = options.priorPrecision ?? DEFAULT_PRIOR_PRECISION;
  const weighted: WeightedRow[] = rows.map((row) => ({
    x: [1, ...signals.map((s) => featureValue(row.signals[s]))],
    y: row.label,
    w: row.weight,
  }));
  const fit = fitLogistic(weighted, {
    mean: [defaultModel.bias + samplingShift, ...signals.map((s) => defaultModel.weights[s] ?? 0)],
    precision: new Array<number>(signals.length + 1).fill(precision),
  });
  const [bias = 0, ...weights] = fit.coefficients;
  return {
    bias: round6(bias - samplingShift),
    weights: Object.fromEntries(signals.map((s, j) => [s, round6(weights[j] ?? 0)])),
  };
}

/** Predicted probability of abuse for stored signal values, exactly as the live model scores them. */
function probabilityOf(
  model: Pick<ScoringModel, 'bias' | 'weights'>,
  signals: Readonly<Record<string, number>>,
) {
  const scored = scoreWithModel({ eventType: '', version: '', ...model }, signals);
  return sigmoid(model.bias + scored.contributions.reduce((sum, c) => sum + c.contribution, 0));
}

export function scoredBy(
  model: Pick<ScoringModel, 'bias' | 'weights'>,
  rows: readonly LabeledRow[],
): Scored[] {
  return rows.map((row) => ({ probability: probabilityOf(model, row.signals), label: row.label }));
}

/**
 * The workflow's plain score thresholds (`abuseScore >= N`, or the model's own `abuseScore >=
 * modelDeclineAt` / `modelReviewAt`, read at `model`), the ones recall and precision are read at.
 */
export function scoreThresholds(workflow: Workflow, model: ModelThresholds): ScoreThreshold[] {
  return workflow.rules.flatMap((rule) => {
    const match = /^\s*abuseScore\s*>=\s*(\d+(?:\.\d+)?|modelDeclineAt|modelReviewAt)\s*$/.exec(
      rule.condition,
    );
    if (!match?.[1]) return [];
    const threshold =
      match[1] === 'modelDeclineAt'
        ? model.declineAt
        : match[1] === 'modelReviewAt'
          ? model.reviewAt
          : Number(match[1]);
    return [{ rule: rule.name, decision: rule.decision, threshold }];
  });
}

/**
 * The promotion rule. The merchant's objective is catching abuse (PR AUC, the area that rewards
 * catching positives near the top of the ranking) while declining at most 0.5 % of good customers.
 * A candidate is promotable when, on the same holdout as the active model:
 * - the holdout holds good events and at least 10 abusive ones (otherwise nothing can be judged);
 * - PR AUC and ROC AUC are each no more than 0.01 below the active model's;
 * - at every threshold of the workflow, it catches no less than the active model (minus 0.05);
 * - at every DECLINE threshold, good customers declined ≤ max(0.5 %, the active model's share), at
 *   every REVIEW threshold declined or reviewed ≤ max(2.5 %, the active model's share);
 * - a REVIEW rule is judged on at least 114 good events (enough to show 2 % with 90 % confidence);
 * - calibration error ≤ max(10 points, the active model's);
 * - it still declines at least 95 % of the events the live model declined since the holdout's start
 *   that got no feedback: their outcome can never be observed, so no holdout can show that approving
 *   them is safe, and a pattern nobody labels (a declined account farm) must not be unlearned.
 */
export function promotionVerdict(
  candidate: ModelFigures,
  active: ModelFigures,
  censored: CensoredDeclines = { events: 0, stillDeclined: 0 },
): PromotionVerdict {
  const reasons: string[] = [];
  if (candidate.positives === 0 || candidate.positives === candidate.events) {
    return { promotable: false, reasons: ['the holdout needs both abusive and good events to judge'] };
  }
  if (candidate.positives < MIN_HOLDOUT_POSITIVES) {
    return {
      promotable: false,
      reasons: [
        `the holdout has ${plural(candidate.positives, 'abusive event')}; at least ${MIN_HOLDOUT_POSITIVES} are needed to judge`,
      ],
    };
  }
  const notWorse = (name: string, mine: number | null, theirs: number | null) => {
    if (mine !== null && theirs !== null && mine < theirs - AUC_TOLERANCE)
      reasons.push(`${name} ${mine} is below the active model's ${theirs}`);
  };
  notWorse('PR AUC', candidate.prAuc, active.prAuc);
  notWorse('ROC AUC', candidate.rocAuc, active.rocAuc);
  for (const figures of candidate.thresholds) {
    const theirs = active.thresholds.find((t) => t.rule === figures.rule);
    // Calibration alone can lower every score below a threshold: ranking as well then catches less.
    if (theirs && figures.recall < theirs.recall - RECALL_TOLERANCE)
      reasons.push(`${figures.rule} catches ${figures.recall} of abusive events (active: ${theirs.recall})`);
    if (figures.decision !== 'DECLINE' && figures.decision !== 'REVIEW') continue;
    // Too few good events to see 2 % of them: a REVIEW band of a calibrated version, on another
    // scale than the default's, would be a guess (the eval's return versions reviewed 3-4 % of good
    // returns after judging on 26-39 good ones with none flagged).
    const goodEvents = candidate.events - candidate.positives;
    if (figures.decision === 'REVIEW' && goodEvents < MIN_GOOD_FOR_REVIEW_SHARE) {
      reasons.push(
        `${figures.rule}: ${goodEvents} good events in the holdout cannot show it reviews at most ${MAX_GOOD_REVIEWED * 100} % of them (${MIN_GOOD_FOR_REVIEW_SHARE} needed)`,
      );
      continue;
    }
    // A REVIEW rule's share includes the events declined above it.
    const allowed =
      figures.decision === 'DECLINE' ? MAX_GOOD_DECLINED : MAX_GOOD_DECLINED + MAX_GOOD_REVIEWED;
    const limit = Math.max(allowed, theirs?.falsePositiveRate ?? 0);
    const verb = figures.decision === 'DECLINE' ? 'declines' : 'declines or reviews';
    if (figures.falsePositiveRate > limit)
      reasons.push(`${figures.rule} ${verb} ${figures.falsePositiveRate} of good events (limit ${limit})`);
  }
  if (censored.stillDeclined < censored.events * (1 - RECALL_TOLERANCE))
    reasons.push(
      `declines ${censored.stillDeclined} of ${censored.events} events the live model declined that got no feedback (outcome never observable)`,
    );
  const calibrationLimit = Math.max(CALIBRATION_TOLERANCE, active.calibrationError);
  if (candidate.calibrationError > calibrationLimit)
    reasons.push(`calibration error ${candidate.calibrationError} points exceeds ${calibrationLimit}`);
  return {
    promotable: reasons.length === 0,
    reasons: reasons.length === 0 ? ['not worse than the active model'] : reasons,
  };
}

const featureValue = (value: number | undefined) =>
  value !== undefined && Number.isFinite(value) ? value : 0;
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
