import type { EventType } from '../../contract/endpoints.ts';
import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { noteWords } from '../list-marker.ts';
import { dayOf, type ListHit, watchedOf } from '../lists.ts';
import { declareSignal, KIND_WORDS, perEvent, SILENT_BELOW, saturating } from './signal.ts';

/**
 * Identities of the event on the watch list (shared/scoring/lists.ts): a watched identity is a
 * signal, not an override. It says most when the event's customer (orders and returns: the e-mail;
 * signups, logins, account updates: the account) is new with this event, or was first seen after the
 * entry and has little clean history of its own since: a ring's fresh e-mail on the device of a lost
 * fraud chargeback, back a day or a week later. A customer known from before the entry (a household
 * member on that device) weighs far less, and so does one first seen after it who has kept orders
 * and come back over weeks with no abuse of its own: the watch turns from the first signal to the
 * second as that history grows (`noveltyOf`), never at a fixed age.
 */
export interface WatchFacts {
  /** The watched identities the event type reads, each with its earliest entry for the type. */
  watched: readonly ListHit[];
  /** The earliest first sighting of the event's customer identities; undefined: new with this event. */
  customerFirstSeenAt: number | undefined;
  /** The customer's own clean history before this event. */
  clean: CleanHistory;
  /** `e-mail` or `account`, for the evidence. */
  customerWord: string;
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
    const orders = customer.count(METRIC.orders).lifetime;
    const returns = customer.count(METRIC.returns).lifetime;
    keptEvents = Math.max(
      keptEvents,
      Math.max(0, orders - returns) + customer.count(METRIC.loginSuccesses).lifetime,
    );
    abusive ||=
      customer.count(METRIC.lostChargebacks).d365 > 0 ||
      customer.count(METRIC.abusiveReturns).d365 > 0 ||
      customer.count(METRIC.accountEventDeclines).d30 > 0;
  }
  const activeDays = first !== undefined && latest !== undefined ? Math.max(0, latest - first) / DAY_MS : 0;
  return { activeDays, keptEvents, abusive };
}

/**
 * How new the customer is to a watched identity, 0..1: 1 when it is new with this event or its own
 * history holds abuse, falling smoothly with its clean history, e^-(active days / 14 + kept events /
 * 3); 0 when it was known before the entry.
 */
function noveltyOf(watch: WatchFacts, hit: ListHit): number {
  const first = watch.customerFirstSeenAt;
  if (first === undefined) return 1;
  if (first < hit.marker.since) return 0;
  if (watch.clean.abusive) return 1;
  return Math.exp(
    -(watch.clean.activeDays / CLEAN_ACTIVE_DAYS_SCALE + watch.clean.keptEvents / CLEAN_EVENTS_SCALE),
  );
}

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
