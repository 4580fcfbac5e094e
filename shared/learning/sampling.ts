import { createHash } from 'node:crypto';
import type { LabeledRow } from './labels.ts';

/**
 * Bounded training sets: every positive plus a share of the negatives. Which negatives are kept
 * follows from a digest of the seed and the event key, not from row order, so the same seed keeps
 * the same events wherever the rows are read from (a Query, an S3 export, a shard of either).
 */
export function sampleNegatives(
  rows: readonly LabeledRow[],
  maxRows: number,
  seed: string,
): { rows: LabeledRow[]; negativeSamplingRate: number } {
  const positives = rows.filter((r) => r.label === 1);
  const negatives = rows.filter((r) => r.label === 0);
  if (rows.length <= maxRows || negatives.length === 0) return { rows: [...rows], negativeSamplingRate: 1 };
  const rate = Math.max(1, maxRows - positives.length) / negatives.length;
  const kept = negatives.filter((r) => sampleKeyOf(seed, r.eventKey, r.part) < rate);
  return { rows: [...positives, ...kept], negativeSamplingRate: rate };
}

/**
 * A decision part's place in [0, 1) for sampling: fixed by the seed (the merchant and event type)
 * and the part, so the lake stores it with the row and a query samples with `sample_key < rate`.
 */
export function sampleKeyOf(seed: string, eventKey: string, part: number): number {
  return createHash('sha256').update(`${seed}|${eventKey}|${part}`).digest().readUInt32BE(0) / 2 ** 32;
}
