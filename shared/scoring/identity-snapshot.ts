import type { IdentityRef } from '../identity/identities.ts';
import type { ListMarker } from './list-marker.ts';

/**
 * What scoring reads of one identity's history, as of the event's own time. The store builds it from the identity's item
 * (shared/store/identity-history.ts) and keeps the windows' buckets (shared/store/history-windows.ts);
 * scoring only asks for counts, so it never depends on the store.
 */
export type HistoryWindow = 'm15' | 'h1' | 'h24' | 'd30' | 'd365' | 'lifetime';
export type WindowedCount = Record<HistoryWindow, number>;
/** Distinct linked identities in the last 15 min / 1 h / 24 h (approximate: see distinct-windows.ts). */
export type VelocityWindow = 'm15' | 'h1' | 'h24';
export type DistinctCount = Record<VelocityWindow, number>;

export interface IdentitySnapshot {
  ref: IdentityRef;
  /** Whether anything was ever recorded for this identity. */
  known: boolean;
  firstSeenAt: number | undefined;
  /** The latest event time recorded on it (a late event may find one after its own time). */
  lastSeenAt: number | undefined;
  count: (metric: string) => WindowedCount;
  /**
   * Seconds from the latest event of a metric whose moments are kept (a new-device login) to the
   * event's time; negative when it came later, undefined when none was kept.
   */
  secondsSinceLatest: (metric: string) => number | undefined;
  /** Distinct identities of a linked kind in the last 15 min / 1 h / 24 h, the event's own left out. */
  distinct: (kind: string, own?: readonly { digest: string }[]) => DistinctCount;
  /** Distinct identities of a kind linked to this one. */
  linkedCount: (kind: string) => number;
  isLinked: (kind: string, digest: string) => boolean;
  /** Block, watch and allow entries on this identity acting at the event's time (since <= at < expiry). */
  lists: readonly ListMarker[];
}
