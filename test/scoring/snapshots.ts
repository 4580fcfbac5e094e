import type { IdentityKind, IdentityRef } from '../../shared/identity/identities.ts';
import type {
  DistinctCount,
  IdentitySnapshot,
  WindowedCount,
} from '../../shared/scoring/identity-snapshot.ts';
import type { ListMarker } from '../../shared/scoring/list-marker.ts';
import { identityTimeFacts } from '../../shared/scoring/signals/identity-time.ts';
import type { WindowName } from '../../shared/store/history-windows.ts';

/** In-memory identity histories for pure scoring tests: counts per metric and window, and links. */
export interface FakeHistory {
  counts?: Record<string, Partial<WindowedCount>>;
  /** Linked identities by kind, as digests. */
  links?: Record<string, readonly string[]>;
  /** Distinct linked identities by kind in the velocity windows (the event's own already left out). */
  distinct?: Record<string, Partial<DistinctCount>>;
  firstSeenAt?: number;
  lastSeenAt?: number;
  /** Seconds since each stamped metric's latest event (secondsSinceLatest). */
  latest?: Record<string, number>;
  /** List entries on the identity, acting at the time the snapshot is read. */
  lists?: readonly ListMarker[];
}

const ZERO: WindowedCount = { m15: 0, h1: 0, h24: 0, d30: 0, d365: 0, lifetime: 0 };

export function fakeSnapshot(
  kind: IdentityKind,
  digest: string,
  history: FakeHistory = {},
): IdentitySnapshot {
  const ref: IdentityRef = { kind, digest };
  return {
    ref,
    known: history.counts !== undefined || history.links !== undefined || history.firstSeenAt !== undefined,
    firstSeenAt: history.firstSeenAt,
    lastSeenAt: history.lastSeenAt ?? history.firstSeenAt,
    distinct: (linkKind) => ({ m15: 0, h1: 0, h24: 0, ...history.distinct?.[linkKind] }),
    count: (metric) => ({ ...ZERO, ...history.counts?.[metric] }),
    secondsSinceLatest: (metric) => history.latest?.[metric],
    linkedCount: (linkKind) => history.links?.[linkKind]?.length ?? 0,
    isLinked: (linkKind, linked) => history.links?.[linkKind]?.includes(linked) ?? false,
    lists: history.lists ?? [],
  };
}

/** A list entry's marker as an identity's item carries it: a lost fraud chargeback's, by default. */
export const listMarker = (overrides: Partial<ListMarker> = {}): ListMarker => ({
  id: 'abcdefghi',
  list: 'block',
  since: Date.UTC(2026, 10, 12, 9, 30, 15),
  expiresAt: undefined,
  eventTypes: undefined,
  note: { cause: 'chargeback', ref: 'o-123' },
  ...overrides,
});

/** n events inside window `narrowest`: they count there and in every wider window. */
export function countIn(narrowest: WindowName, n: number): Partial<WindowedCount> {
  const order: WindowName[] = ['m15', 'h1', 'h24', 'd30', 'd365', 'lifetime'];
  return Object.fromEntries(order.slice(order.indexOf(narrowest)).map((w) => [w, n]));
}

/** An order's history (one e-mail, card, device and address) and its time facts, read at `at`. */
export function orderHistoryOf(
  email: IdentitySnapshot,
  card: IdentitySnapshot,
  device: IdentitySnapshot,
  address: IdentitySnapshot,
  at: number,
) {
  const all = [email, card, device, address];
  return {
    history: { emails: [email], cards: [card], devices: [device], places: [address], all },
    time: identityTimeFacts(all, email.ref, at),
  };
}
