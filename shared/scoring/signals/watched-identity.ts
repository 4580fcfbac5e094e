import type { EventType } from '../../contract/endpoints.ts';
import { sameIdentity } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { noteWords } from '../list-marker.ts';
import { dayOf, type ListHit, type WatchHit, watchedOf } from '../lists.ts';
import { declareSignal, KIND_WORDS, perEvent, SILENT_BELOW, saturating } from './signal.ts';

/**
 * Identities of the event on the watch list (shared/scoring/lists.ts): a watched identity is a
 * signal, not an override. It says most when the event's customer (orders and returns: the e-mail;
 * signups, logins, account updates: the account) is new with this event, or was first seen after the
 * entry and has little clean history of its own since: a ring's fresh e-mail on the device of a lost
 * fraud chargeback, back a day or a week later. A customer known from before the entry (a household
 * member on that device) weighs far less, and so does one first seen after it who has kept orders
 * and come back over weeks with no abuse of its own: the watch turns from the first signal to the
 * second as that history grows (`noveltyOf`), never at a fixed age. A newcomer also weighs less on
 * an identity a feedback rule listed after a clean history of its own (a family's device, months of
 * kept orders, one member's fraud chargeback) than on a ring's, which has none (`standingOf`).
 */
export interface WatchFacts {
  /** The watched identities the event type reads, each with its earliest entry for the type. */
  watched: readonly WatchHit[];
  /** The earliest first sighting of the event's customer identities; undefined: new with this event. */
  customerFirstSeenAt: number | undefined;
  /** The customer's own clean history before this event. */
  clean: CleanHistory;
  /** `e-mail` or `account`, for the evidence. */
  customerWord: string;
  /** Identities of the event whose household the customer is named a member of (household.ts). */
  household: readonly IdentitySnapshot[];
  /** The event's own time (epoch ms). */
  at: number;
}

/** What a customer did before the event that vouches for it, read from its own identities. */
interface CleanHistory {
  /** Days between its first and its latest event before this one. */
  activeDays: number;
  /** Orders not returned, and successful logins: events that went through without a complaint. */
  keptEvents: number;
  /** Abuse recorded on it (a lost chargeback, an abusive return, a declined account event). */
  abusive: boolean;
}

/**
 * The clean history that halves a customer's novelty (e^-1 per scale): two weeks of coming back, or
 * three kept orders or logins. A ring's e-mail is used once or twice within days; a household member
 * keeps ordering over months.
 */
export const CLEAN_ACTIVE_DAYS_SCALE = 14;
export const CLEAN_EVENTS_SCALE = 3;
const DAY_MS = 86_400_000;
const NO_HISTORY: CleanHistory = { activeDays: 0, keptEvents: 0, abusive: false };

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
  household: readonly IdentitySnapshot[] = [],
): WatchFacts {
  const seen = customers.flatMap((c) => (c.firstSeenAt === undefined ? [] : [c.firstSeenAt]));
  const first = seen.length > 0 ? Math.min(...seen) : undefined;
  const watched = watchedOf(eventType, watchable);
  return {
    watched,
    customerFirstSeenAt: first,
    // Only a watched identity reads the customer's history.
    clean: watched.length > 0 ? cleanHistoryOf(customers, first, at) : NO_HISTORY,
    customerWord,
    household,
    at,
  };
}

function cleanHistoryOf(
  customers: readonly IdentitySnapshot[],
  first: number | undefined,
  at: number,
): CleanHistory {
  let latest = first;
  let keptEvents = 0;
  let abusive = false;
  for (const customer of customers) {
    const last = customer.lastSeenAt;
    if (last !== undefined && last <= at && (latest === undefined || last > latest)) latest = last;
    keptEvents = Math.max(keptEvents, keptEventsOf(customer));
    abusive ||=
      customer.count(METRIC.lostChargebacks).d365 > 0 ||
      customer.count(METRIC.abusiveReturns).d365 > 0 ||
      customer.count(METRIC.accountEventDeclines).d30 > 0;
  }
  const activeDays = first !== undefined && latest !== undefined ? Math.max(0, latest - first) / DAY_MS : 0;
  return { activeDays, keptEvents, abusive };
}

/** Events on an identity that went through without a complaint: orders not returned, successful logins. */
export function keptEventsOf(identity: IdentitySnapshot): number {
  const orders = identity.count(METRIC.orders).lifetime;
  const returns = identity.count(METRIC.returns).lifetime;
  return Math.max(0, orders - returns) + identity.count(METRIC.loginSuccesses).lifetime;
}

/**
 * The clean events a watched identity had when a feedback rule listed it, less the abuse recorded on
 * it since (the entry's own lost chargeback or abusive return among it): a family's device after one
 * member's fraud chargeback keeps the months of orders before it; a ring's device has next to none,
 * and each chargeback on its other orders takes one back. 0 for a person's or a rule's entry.
 */
function standingOf(hit: WatchHit): number {
  const abuse =
    hit.identity.count(METRIC.lostChargebacks).lifetime + hit.identity.count(METRIC.abusiveReturns).lifetime;
  return Math.max(0, (hit.marker.keptAtEntry ?? 0) - abuse);
}

/**
 * How new the customer is to a watched identity, 0..1: 0 when it was known before the entry; 1 when
 * its own history holds abuse; else 1 when it is new with this event, falling smoothly with its clean
 * history, e^-(active days / 14 + kept events / 3), weighed by the identity's standing at the entry,
 * e^-(standing / 3): the same three clean events that vouch for a customer vouch for a shared
 * identity a feedback rule listed after one incident. A customer named another member of the
 * household the identity serves (household.ts `namedHousehold`) takes that standing as clean history
 * of its own as well, e^-(2 standing / 3): a family's device vouches for the family's next member; a
 * ring's, with none, for nobody, whatever name its next e-mail carries.
 */
function noveltyOf(watch: WatchFacts, hit: WatchHit): number {
  const first = watch.customerFirstSeenAt;
  if (first !== undefined && first < hit.marker.since) return 0;
  if (watch.clean.abusive) return 1;
  const identityWeight = Math.exp(-standingOf(hit) / CLEAN_EVENTS_SCALE);
  // Another member of the household the identity serves, by name: its clean history is his too.
  const weight = isHousehold(watch, hit) ? identityWeight * identityWeight : identityWeight;
  if (first === undefined) return weight;
  const { activeDays, keptEvents } = watch.clean;
  return weight * Math.exp(-(activeDays / CLEAN_ACTIVE_DAYS_SCALE + keptEvents / CLEAN_EVENTS_SCALE));
}

const isHousehold = (watch: WatchFacts, hit: WatchHit) =>
  watch.household.some((member) => sameIdentity(member.ref, hit.identity.ref));

/** The event's watched identities, weighed by how new the customer is to each: `fresh` + `known` = n. */
const watchedSplit = perEvent(({ watch }: Watched) => {
  if (!watch) return { fresh: 0, known: 0, first: undefined };
  let fresh = 0;
  let first: ListHit | undefined;
  for (const hit of watch.watched) {
    const novelty = noveltyOf(watch, hit);
    fresh += novelty;
    if (novelty > 0 && !first) first = hit;
  }
  return { fresh, known: watch.watched.length - fresh, first };
});

const watchWords = (hit: ListHit) =>
  `${KIND_WORDS[hit.kind] ?? hit.kind} on the watch list since ${dayOf(hit.marker.since)} (${noteWords(hit.marker.note)})`;

/** log2(1 + n) of the watched identities, each weighed by the customer's novelty to it. */
export const watchedIdentityNewCustomer = declareSignal('watchedIdentityNewCustomer', (input: Watched) => {
  const { fresh, first } = watchedSplit(input);
  const value = saturating(fresh);
  if (value < SILENT_BELOW || !first || !input.watch) return undefined;
  return {
    value,
    evidence: `${watchWords(first)}; ${input.watch.customerWord} first seen after it`,
  };
});

/** log2(1 + n) of the watched identities, each weighed by how well the customer is known (1 - novelty). */
export const watchedIdentityKnownCustomer = declareSignal(
  'watchedIdentityKnownCustomer',
  (input: Watched) => {
    const value = saturating(watchedSplit(input).known);
    const hit = input.watch?.watched[0];
    return value >= SILENT_BELOW && hit ? { value, evidence: watchWords(hit) } : undefined;
  },
);
