import type { EventType } from '../../contract/endpoints.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { noteWords } from '../list-marker.ts';
import { dayOf, type ListHit, watchedOf } from '../lists.ts';
import { declareSignal, KIND_WORDS, perEvent, saturating } from './signal.ts';

/**
 * Identities of the event on the watch list (shared/scoring/lists.ts): a watched identity is a
 * signal, not an override. It says most when the event's customer (orders and returns: the e-mail;
 * signups, logins, account updates: the account) was first seen after the entry was made, or is new
 * with this event: a ring's fresh e-mail on the device of a lost fraud chargeback. A customer with
 * history from before the entry (a household member on that device) weighs far less.
 */
export interface WatchFacts {
  /** The watched identities the event type reads, each with its earliest entry for the type. */
  watched: readonly ListHit[];
  /** The earliest first sighting of the event's customer identities; undefined: new with this event. */
  customerFirstSeenAt: number | undefined;
  /** `e-mail` or `account`, for the evidence. */
  customerWord: string;
  /** The event's own time (epoch ms). */
  at: number;
}

/** How long after its first sighting a customer still counts as new to a watched identity. */
const NEW_CUSTOMER_MS = 3 * 86_400_000;

/** A scoring input that may carry the event's watch facts. */
interface Watched {
  watch?: WatchFacts | undefined;
}

export function watchFacts(
  eventType: EventType,
  watchable: readonly IdentitySnapshot[],
  customers: readonly IdentitySnapshot[],
  customerWord: string,
  at: number,
): WatchFacts {
  const seen = customers.flatMap((c) => (c.firstSeenAt === undefined ? [] : [c.firstSeenAt]));
  return {
    watched: watchedOf(eventType, watchable),
    customerFirstSeenAt: seen.length > 0 ? Math.min(...seen) : undefined,
    customerWord,
    at,
  };
}

/** The event's watched identities, split by whether its customer came after the entry. */
const watchedSplit = perEvent(({ watch }: Watched) => {
  if (!watch) return { fresh: [], known: [] };
  const { watched, customerFirstSeenAt: first, at } = watch;
  // New: first seen after the entry and only days before the event (a ring's fresh e-mail); a
  // household member who joined after the entry and has ordered for weeks is known by now.
  const isNew = (hit: ListHit) =>
    first === undefined || (first >= hit.marker.since && at - first <= NEW_CUSTOMER_MS);
  return { fresh: watched.filter(isNew), known: watched.filter((hit) => !isNew(hit)) };
});

const watchWords = (hit: ListHit) =>
  `${KIND_WORDS[hit.kind] ?? hit.kind} on the watch list since ${dayOf(hit.marker.since)} (${noteWords(hit.marker.note)})`;

/** log2(1 + n) of the watched identities whose entry is older than the customer (or the customer is new). */
export const watchedIdentityNewCustomer = declareSignal('watchedIdentityNewCustomer', (input: Watched) => {
  const { fresh } = watchedSplit(input);
  if (fresh.length === 0 || !input.watch) return undefined;
  return {
    value: saturating(fresh.length),
    evidence: `${watchWords(fresh[0]!)}; ${input.watch.customerWord} first seen after it`,
  };
});

/** log2(1 + n) of the watched identities whose entry is newer than the customer (a household member). */
export const watchedIdentityKnownCustomer = declareSignal(
  'watchedIdentityKnownCustomer',
  (input: Watched) => {
    const { known } = watchedSplit(input);
    return known.length > 0
      ? { value: saturating(known.length), evidence: watchWords(known[0]!) }
      : undefined;
  },
);
