import { createHash } from 'node:crypto';
import type { LabeledRow } from './labels.ts';

/**
 * Bounded training sets: every positive plus the negatives whose sample key is below the rate the
 * lake query read them at (shared/lake/queries/training_events.sql). The key follows from a digest
 * of the seed and the part, not from row order, so the same seed keeps the same events wherever the
 * rows are read from, and a negative the query read only for its feedback is kept at the same rate.
 */
export function keepSampledNegatives(rows: readonly LabeledRow[], rate: number, seed: string): LabeledRow[] {
  if (rate >= 1) return [...rows];
  return rows.filter((r) => r.label === 1 || sampleKeyOf(seed, r.eventKey, r.part) < rate);
}

/**
 * A decision part's place in [0, 1) for sampling: fixed by the seed (the merchant and event type)
 * and the part, so the lake stores it with the row and a query samples with `sample_key < rate`.
 */
export function sampleKeyOf(seed: string, eventKey: string, part: number): number {
  return createHash('sha256').update(`${seed}|${eventKey}|${part}`).digest().readUInt32BE(0) / 2 ** 32;
}
