/** Pure evaluation measures over labeled, scored events. */
export interface ScoredEvent {
  pattern: string;
  eventType: string;
  /** 1 = abusive, 0 = legitimate. */
  label: 0 | 1;
  abuseScore: number;
  decision: string;
  /** An abusive step decided before the feedback that shows its abuse reached the merchant (eval/README.md). */
  beforeEvidence?: boolean;
}

/** ROC AUC by the Mann-Whitney statistic: the chance a random positive outscores a random negative. */
export function rocAuc(positives: readonly number[], negatives: readonly number[]): number {
  if (positives.length === 0 || negatives.length === 0) return Number.NaN;
  let wins = 0;
  for (const p of positives) {
    for (const n of negatives) wins += p > n ? 1 : p === n ? 0.5 : 0;
  }
  return wins / (positives.length * negatives.length);
}

/** Precision and recall of "flagged" (anything but APPROVE) as the prediction of abuse. */
export function precisionRecall(events: readonly ScoredEvent[]): { precision: number; recall: number } {
  const flagged = events.filter((e) => e.decision !== 'APPROVE');
  const truePositives = flagged.filter((e) => e.label === 1).length;
  const positives = events.filter((e) => e.label === 1).length;
  return {
    precision: flagged.length ? truePositives / flagged.length : Number.NaN,
    recall: positives ? truePositives / positives : Number.NaN,
  };
}

export interface PatternReport {
  pattern: string;
  eventTypes: string;
  positives: number;
  negatives: number;
  auc: number;
  precision: number;
  recall: number;
}

/**
 * Per abuse pattern: its abusive events against the legitimate events of the same event types.
 * The legitimate pattern's own line reports how often good customers are declined.
 */
export function reportByPattern(events: readonly ScoredEvent[], legitimatePattern: string): PatternReport[] {
  const patterns = [...new Set(events.filter((e) => e.label === 1).map((e) => e.pattern))];
  return patterns.map((pattern) => {
    const positives = events.filter((e) => e.pattern === pattern && e.label === 1);
    const types = new Set(positives.map((e) => e.eventType));
    const negatives = events.filter(
      (e) => e.pattern === legitimatePattern && e.label === 0 && types.has(e.eventType),
    );
    const { precision, recall } = precisionRecall([...positives, ...negatives]);
    return {
      pattern,
      eventTypes: [...types].join('+'),
      positives: positives.length,
      negatives: negatives.length,
      auc: rocAuc(
        positives.map((e) => e.abuseScore),
        negatives.map((e) => e.abuseScore),
      ),
      precision,
      recall,
    };
  });
}

export function falseDeclineRate(events: readonly ScoredEvent[]): number {
  const good = events.filter((e) => e.label === 0);
  return good.length ? good.filter((e) => e.decision === 'DECLINE').length / good.length : Number.NaN;
}

export function reviewRate(events: readonly ScoredEvent[]): number {
  const good = events.filter((e) => e.label === 0);
  return good.length ? good.filter((e) => e.decision === 'REVIEW').length / good.length : Number.NaN;
}
