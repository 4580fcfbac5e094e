/**
 * An additive log-odds model: each signal value times its weight adds to the log-odds of abuse, so
 * every score decomposes exactly into signal contributions. Pure; no I/O.
 */
export interface ScoringModel {
  eventType: string;
  version: string;
  /** Log-odds of abuse for an event with every signal at zero. */
  bias: number;
  weights: Readonly<Record<string, number>>;
  /**
   * The score thresholds that belong to this model: a trained version's are chosen on its holdout
   * by the good-customer budget and are its guard's floors (decision-thresholds.ts); absent on the
   * default models.
   */
  thresholds?: ModelThresholds;
}

/** Scores at or above `declineAt` are declined, at or above `reviewAt` (below `declineAt`) reviewed. */
export interface ModelThresholds {
  declineAt: number;
  reviewAt: number;
}

interface Contribution {
  signal: string;
  value: number;
  contribution: number;
}

export interface ModelScore {
  abuseScore: number;
  modelVersion: string;
  /** Non-zero contributions, largest first. */
  contributions: Contribution[];
}

/** Far past where the logistic saturates (a score of 100 needs a log-odds of about 5.3). */
const MAX_CONTRIBUTION = 1_000;

export function scoreWithModel(model: ScoringModel, signals: Readonly<Record<string, number>>): ModelScore {
  let logOdds = model.bias;
  const contributions: Contribution[] = [];
  for (const [signal, weight] of Object.entries(model.weights)) {
    const value = signals[signal] ?? 0;
    if (value === 0 || !Number.isFinite(value)) continue;
    // Bounded so extreme values cannot overflow to +Infinity and -Infinity and sum to NaN.
    const contribution = Math.max(-MAX_CONTRIBUTION, Math.min(MAX_CONTRIBUTION, weight * value));
    logOdds += contribution;
    contributions.push({ signal, value, contribution });
  }
  contributions.sort((a, b) => b.contribution - a.contribution || a.signal.localeCompare(b.signal));
  return { abuseScore: toAbuseScore(logOdds), modelVersion: model.version, contributions };
}

/** Probability of abuse as an integer 0-100. */
export function toAbuseScore(logOdds: number): number {
  const probability = 1 / (1 + Math.exp(-logOdds));
  return Math.min(100, Math.max(0, Math.round(probability * 100)));
}
