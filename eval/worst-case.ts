import { reportByPattern, type ScoredEvent } from './metrics.ts';

/**
 * The figures of one sweep point as counts (eval/README.md), so that points and seeds pool by
 * adding counts, and the worst case across points: the arithmetic of `npm run eval -- --sweep` and
 * `-- --pool`, pure.
 */
export interface PatternCount {
  pattern: string;
  eventTypes: string;
  positives: number;
  /** Positives not approved. */
  caught: number;
  /** ROC AUC of the score against the good events of the same types; NaN where it cannot pool. */
  auc: number;
  /**
   * The positives decided before the feedback that shows their abuse had reached the merchant (a
   * ring's next order before its first chargeback, a return before the warehouse's verdicts on the
   * earlier ones), and how many of those were caught anyway.
   */
  beforeEvidence: { positives: number; caught: number };
  /** ROC AUC of the positives decided once their evidence was in; NaN where it cannot pool. */
  aucWithEvidence: number;
}

export interface GoodCount {
  eventType: string;
  events: number;
  declined: number;
  reviewed: number;
}

export interface PointSummary {
  point: string;
  patterns: PatternCount[];
  good: GoodCount[];
}

export interface SweepSummary {
  seed: number;
  points: (PointSummary & { description: string; requests: number; seconds: number })[];
}

/** A share with the counts it stands on. */
export interface Share {
  count: number;
  of: number;
  /** The sweep point it was measured in. */
  point: string;
}

export const shareOf = (s: Pick<Share, 'count' | 'of'>) => (s.of === 0 ? Number.NaN : s.count / s.of);

/** "0.4 % (3 / 750)". */
export const formatShare = (s: Pick<Share, 'count' | 'of'>) =>
  s.of === 0 ? '- (0 / 0)' : `${(shareOf(s) * 100).toFixed(1)} % (${s.count} / ${s.of})`;

/** The positives decided once their evidence was in, and those of them caught. */
export const withEvidence = (p: PatternCount) => ({
  count: p.caught - p.beforeEvidence.caught,
  of: p.positives - p.beforeEvidence.positives,
});

export function summarizePoint(
  point: string,
  events: readonly ScoredEvent[],
  legitimate: string,
  eventTypes: readonly string[],
): PointSummary {
  const evidenced = reportByPattern(
    events.filter((e) => !e.beforeEvidence),
    legitimate,
  );
  const patterns = reportByPattern(events, legitimate).map((row) => {
    const positives = events.filter((e) => e.pattern === row.pattern && e.label === 1);
    const early = positives.filter((e) => e.beforeEvidence);
    const caught = (of: readonly ScoredEvent[]) => of.filter((e) => e.decision !== 'APPROVE').length;
    return {
      pattern: row.pattern,
      eventTypes: row.eventTypes,
      positives: row.positives,
      caught: caught(positives),
      auc: row.auc,
      beforeEvidence: { positives: early.length, caught: caught(early) },
      aucWithEvidence: evidenced.find((r) => r.pattern === row.pattern)?.auc ?? Number.NaN,
    };
  });
  const good = eventTypes.map((eventType) => {
    const ofType = events.filter((e) => e.label === 0 && e.eventType === eventType);
    return {
      eventType,
      events: ofType.length,
      declined: ofType.filter((e) => e.decision === 'DECLINE').length,
      reviewed: ofType.filter((e) => e.decision === 'REVIEW').length,
    };
  });
  return { point, patterns, good };
}

/** The invariant of every eval run: a pattern the scores rank well is caught. */
export const RANKS_WELL = 0.95;
export const MUST_CATCH = 0.9;

/** Read on the positives decided once their evidence was in: before it, nothing ranks them. */
export function invariantBreaks(summary: PointSummary): PatternCount[] {
  return summary.patterns.filter((p) => {
    const { count, of } = withEvidence(p);
    return p.aucWithEvidence >= RANKS_WELL && count / of < MUST_CATCH;
  });
}

export interface WorstCase {
  /** Per pattern, the point where the smallest share of it was caught. */
  caught: Map<string, Share>;
  /** The same, counting only the positives decided once their evidence was in. */
  caughtWithEvidence: Map<string, Share>;
  /** Per event type, the points with the largest shares of good events declined and reviewed. */
  declined: Map<string, Share>;
  reviewed: Map<string, Share>;
}

/**
 * The worst case across points. A point where a pattern has no positives (or a type no good events)
 * says nothing of it and is skipped; between equal shares, the one standing on more events wins.
 */
export function worstCase(points: readonly PointSummary[]): WorstCase {
  const caught = new Map<string, Share>();
  const caughtWithEvidence = new Map<string, Share>();
  const declined = new Map<string, Share>();
  const reviewed = new Map<string, Share>();
  const keep = (
    map: Map<string, Share>,
    key: string,
    share: Share,
    worse: (a: number, b: number) => boolean,
  ) => {
    if (share.of === 0) return;
    const current = map.get(key);
    const [now, was] = [shareOf(share), current ? shareOf(current) : Number.NaN];
    if (!current || worse(now, was) || (now === was && share.of > current.of)) map.set(key, share);
  };
  for (const { point, patterns, good } of points) {
    for (const p of patterns) {
      keep(caught, p.pattern, { count: p.caught, of: p.positives, point }, (a, b) => a < b);
      keep(caughtWithEvidence, p.pattern, { ...withEvidence(p), point }, (a, b) => a < b);
    }
    for (const g of good) {
      keep(declined, g.eventType, { count: g.declined, of: g.events, point }, (a, b) => a > b);
      keep(reviewed, g.eventType, { count: g.reviewed, of: g.events, point }, (a, b) => a > b);
    }
  }
  return { caught, caughtWithEvidence, declined, reviewed };
}

/**
 * Several seeds' sweeps as one: each point's counts added over the seeds (the same point, different
 * traffic), so a share stands on all of them. ROC AUC does not add up: pooled, it is NaN.
 */
export function poolSweeps(sweeps: readonly { points: readonly PointSummary[] }[]): PointSummary[] {
  const pooled = new Map<string, PointSummary>();
  for (const sweep of sweeps) {
    for (const point of sweep.points) {
      const into = pooled.get(point.point) ?? { point: point.point, patterns: [], good: [] };
      pooled.set(point.point, into);
      for (const p of point.patterns) {
        const row = into.patterns.find((r) => r.pattern === p.pattern);
        if (row) {
          row.positives += p.positives;
          row.caught += p.caught;
          row.beforeEvidence.positives += p.beforeEvidence.positives;
          row.beforeEvidence.caught += p.beforeEvidence.caught;
          row.auc = Number.NaN;
          row.aucWithEvidence = Number.NaN;
        } else {
          const single = sweeps.length === 1;
          into.patterns.push({
            ...p,
            beforeEvidence: { ...p.beforeEvidence },
            auc: single ? p.auc : Number.NaN,
            aucWithEvidence: single ? p.aucWithEvidence : Number.NaN,
          });
        }
      }
      for (const g of point.good) {
        const row = into.good.find((r) => r.eventType === g.eventType);
        if (row) {
          row.events += g.events;
          row.declined += g.declined;
          row.reviewed += g.reviewed;
        } else into.good.push({ ...g });
      }
    }
  }
  return [...pooled.values()];
}

/** A pattern's row as `.eval/sweep-<seed>.json` holds it: JSON writes NaN as null. */
type WrittenPatternCount = Omit<PatternCount, 'auc' | 'aucWithEvidence' | 'beforeEvidence'> & {
  auc: number | null;
  aucWithEvidence?: number | null;
  beforeEvidence?: PatternCount['beforeEvidence'];
};

/**
 * A sweep file read back, and whether it was written before positives were split by their evidence:
 * such a file's positives all count as decided once it was in, with the AUC of them all.
 */
export function readSweepFile(text: string): { sweep: SweepSummary; unsplit: boolean } {
  const written = JSON.parse(text) as Omit<SweepSummary, 'points'> & {
    points: (Omit<SweepSummary['points'][number], 'patterns'> & { patterns: WrittenPatternCount[] })[];
  };
  let unsplit = false;
  const points = written.points.map((point) => ({
    ...point,
    patterns: point.patterns.map((row) => {
      const auc = row.auc ?? Number.NaN;
      if (!row.beforeEvidence) {
        unsplit = true;
        return { ...row, auc, beforeEvidence: { positives: 0, caught: 0 }, aucWithEvidence: auc };
      }
      return {
        ...row,
        auc,
        beforeEvidence: row.beforeEvidence,
        aucWithEvidence: row.aucWithEvidence ?? Number.NaN,
      };
    }),
  }));
  return { sweep: { ...written, points }, unsplit };
}
