import type { IdentityRef } from '../identity/identities.ts';

/**
 * What scoring reads of one identity's history. The store builds it from the identity's item
 * (shared/store/identity-history.ts) and keeps the windows' buckets (shared/store/history-windows.ts);
 * scoring only asks for counts, so it never depends on the store.
 */
export type HistoryWindow = 'm15' | 'h1' | 'h24' | 'd30' | 'd365' | 'lifetime';
export type WindowedCount = Record<HistoryWindow, number>;

export interface IdentitySnapshot {
  ref: IdentityRef;
  /** Whether anything was ever recorded for this identity. */
  known: boolean;
  firstSeenAt: number | undefined;
  count: (metric: string) => WindowedCount;
  /** Distinct identities of a kind linked to this one. */
  linkedCount: (kind: string) => number;
  isLinked: (kind: string, digest: string) => boolean;
}
