import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { noteWords } from '../list-marker.ts';
import { dayOf, type ListHit, watchedOf } from '../lists.ts';
import type { EventType } from '../workflow.ts';
import { KIND_WORDS, type Signal, saturating } from './signal.ts';

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
}

export function watchFacts(
  eventType: EventType,
  watchable: readonly IdentitySnapshot[],
  customers: readonly IdentitySnapshot[],
  customerWord: string,
): WatchFacts {
  const seen = customers.flatMap((c) => (c.firstSeenAt === undefined ? [] : [c.firstSeenAt]));
  return {
    watched: watchedOf(eventType, watchable),
    customerFirstSeenAt: seen.length > 0 ? Math.min(...seen) : undefined,
    customerWord,
  };
}

/** `watchedIdentityNewCustomer` and `watchedIdentityKnownCustomer`: log2(1 + n) of the watched identities each way. */
export function watchedIdentitySignals(facts: WatchFacts | undefined): Record<string, Signal | undefined> {
  if (!facts || facts.watched.length === 0) return {};
  const first = facts.customerFirstSeenAt;
  const isNew = (hit: ListHit) => first === undefined || first >= hit.marker.since;
  const fresh = facts.watched.filter(isNew);
  const known = facts.watched.filter((hit) => !isNew(hit));
  const words = (hit: ListHit) =>
    `${KIND_WORDS[hit.kind] ?? hit.kind} on the watch list since ${dayOf(hit.marker.since)} (${noteWords(hit.marker.note)})`;
  return {
    watchedIdentityNewCustomer:
      fresh.length > 0
        ? {
            value: saturating(fresh.length),
            evidence: `${words(fresh[0]!)}; ${facts.customerWord} first seen after it`,
          }
        : undefined,
    watchedIdentityKnownCustomer:
      known.length > 0 ? { value: saturating(known.length), evidence: words(known[0]!) } : undefined,
  };
}
