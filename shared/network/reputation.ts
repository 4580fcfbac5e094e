import type { IdentityRef } from '../identity/identities.ts';
import {
  NETWORK_ABUSE_FLOOR,
  NETWORK_ABUSE_KINDS,
  type NetworkAbuseKind,
  type NetworkReputation,
} from '../scoring/network-reputation.ts';

/**
 * The network's items as plain data, and the pure functions between them (the store reads and
 * writes them: shared/store/network-items.ts).
 *
 * - A ledger is one merchant's contributions to one network identity: its first sighting and its
 *   confirmed-abuse causes (a dispute, a return's dispositions, a review), each with its kind and
 *   time. It is the contribution's idempotency (a cause already there adds nothing) and what a WON
 *   dispute, a reversed disposition or a withdrawal takes back.
 * - The reputation is a function of the identity's ledgers, rebuilt whenever one changes: distinct
 *   merchants and the earliest first sighting; confirmed abuse as one entry per contributing
 *   merchant (its earliest cause's time), per kind and over all kinds, so a merchant counts once
 *   however many causes it sends; merchants first seeing it per hour for the last NEW_SIGHTING_HOURS
 *   hours. No merchant id, no cause, no amount: under 1 KB whatever the traffic.
 * - A merchant's own summary (its ledger's counts, kept on its own identity item by the same
 *   transaction) lets its decisions take its own contribution out without another read.
 */
export interface NetworkLedger {
  /** Event time of the merchant's first sighting of the identity. */
  seenAt?: number;
  /** When the network recorded that sighting (the service's clock, which no merchant sets). */
  recordedAt?: number;
  causes: Record<string, { kind: NetworkAbuseKind; at: number }>;
}

/** Abuse of one kind in one merchant's ledger: its causes and their first and latest times. */
interface AbuseSummary {
  n: number;
  first: number;
  last: number;
}

export interface OwnSummary {
  seenAt?: number;
  abuse: Partial<Record<NetworkAbuseKind, AbuseSummary>>;
}

/** Abuse of one kind over the merchants: each contributing merchant's earliest cause, ascending. */
interface MerchantsAbuse {
  at: number[];
  last: number;
}

export interface ReputationItem {
  merchants: number;
  firstSeenAt?: number;
  abuse: Partial<Record<NetworkAbuseKind, MerchantsAbuse>>;
  /** Each merchant that confirmed abuse of any kind: its earliest cause's time, ascending. */
  abusedAt: number[];
  /** Epoch hour -> merchants whose first sighting fell in it (recent hours only). */
  seen: Record<string, number>;
}

/** A ledger keeps at most this many causes: a card's 21st lost chargeback at one shop says nothing new. */
const MAX_CAUSES_PER_LEDGER = 20;
/** Hours of first sightings kept (the signal reads 24; the rest is room for late events). */
const NEW_SIGHTING_HOURS = 48;
/** Retention: network items expire this long after their last contribution. */
export const NETWORK_RETENTION_DAYS = 400;
/**
 * A cause counts only on an identity the merchant's sighting was recorded at least this long before
 * the cause was: a made-up order disputed at once plants nothing.
 */
const SIGHTING_BEFORE_CAUSE_MS = 86_400_000;

/**
 * A merchant's confirmed-abuse contributions (a cause on one identity) accepted per UTC day
 * (NETWORK_CAUSES_PER_DAY overrides it); past it the worker drops them and counts
 * NetworkContributionsCapped (alarmed: lib/webhook-worker.ts). A large merchant's honest day is a few
 * hundred lost fraud chargebacks, each on three identities at most; a burst past this is a merchant
 * planting reputation or a feedback integration gone wrong.
 */
export const networkCausesPerDay = () => Number(process.env.NETWORK_CAUSES_PER_DAY ?? 1_000);

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const hourOf = (at: number) => Math.floor(at / HOUR_MS);

export const isEmptyLedger = (ledger: NetworkLedger) =>
  ledger.seenAt === undefined && Object.keys(ledger.causes).length === 0;

/** The ledger with the merchant's sighting at event time `at`, recorded by the network at `now`. */
export function withSighting(ledger: NetworkLedger, at: number, now: number): NetworkLedger {
  const recordedAt = ledger.recordedAt ?? now;
  if (ledger.seenAt !== undefined && ledger.seenAt <= at && ledger.recordedAt !== undefined) return ledger;
  return { ...ledger, seenAt: Math.min(ledger.seenAt ?? at, at), recordedAt };
}

/**
 * The ledger with `cause` at its wanted state (undefined: not contributing). A cause queued (at
 * `queuedAt`, the service's clock) less than SIGHTING_BEFORE_CAUSE_MS after the merchant's sighting
 * was recorded, or on an identity it never sighted as a member, contributes nothing.
 */
export function withCause(
  ledger: NetworkLedger,
  cause: string,
  wanted: { kind: NetworkAbuseKind; at: number } | undefined,
  queuedAt: number,
): NetworkLedger {
  const sightedLongBefore =
    ledger.recordedAt !== undefined && ledger.recordedAt + SIGHTING_BEFORE_CAUSE_MS <= queuedAt;
  const counted = sightedLongBefore ? wanted : undefined;
  const current = ledger.causes[cause];
  if (!counted) {
    if (!current) return ledger;
    const { [cause]: _gone, ...rest } = ledger.causes;
    return { ...ledger, causes: rest };
  }
  if (current && current.kind === counted.kind && current.at === counted.at) return ledger;
  if (!current && causeCount(ledger) >= MAX_CAUSES_PER_LEDGER) return ledger;
  return { ...ledger, causes: { ...ledger.causes, [cause]: counted } };
}

/** The ledger without any cause: its sighting stays (a withdrawn wrong contribution). */
export const withoutCauses = (ledger: NetworkLedger): NetworkLedger => ({ ...ledger, causes: {} });

const causeCount = (ledger: NetworkLedger) => Object.keys(ledger.causes).length;

export const sameLedger = (a: NetworkLedger, b: NetworkLedger) =>
  a.seenAt === b.seenAt &&
  a.recordedAt === b.recordedAt &&
  JSON.stringify(sortedCauses(a)) === JSON.stringify(sortedCauses(b));
const sortedCauses = (ledger: NetworkLedger) =>
  Object.entries(ledger.causes).sort(([x], [y]) => (x < y ? -1 : 1));

function ownAbuseOf(ledger: NetworkLedger): OwnSummary['abuse'] {
  const abuse: OwnSummary['abuse'] = {};
  for (const { kind, at } of Object.values(ledger.causes)) {
    const s = abuse[kind];
    abuse[kind] = s
      ? { n: s.n + 1, first: Math.min(s.first, at), last: Math.max(s.last, at) }
      : { n: 1, first: at, last: at };
  }
  return abuse;
}

export function ownSummaryOf(ledger: NetworkLedger): OwnSummary {
  return { ...(ledger.seenAt !== undefined ? { seenAt: ledger.seenAt } : {}), abuse: ownAbuseOf(ledger) };
}

const ascending = (times: number[]) => times.sort((x, y) => x - y);
const earliestCause = (own: OwnSummary['abuse']) =>
  Object.values(own).reduce<number | undefined>((min, s) => Math.min(min ?? s.first, s.first), undefined);

/** The reputation the ledgers make, first sightings kept for the hours before `now`. */
export function reputationOf(ledgers: readonly NetworkLedger[], now: number): ReputationItem {
  const sightings = ledgers.flatMap((l) => (l.seenAt === undefined ? [] : [l.seenAt]));
  const oldestHour = hourOf(now) - NEW_SIGHTING_HOURS;
  const seen: Record<string, number> = {};
  for (const at of sightings) {
    const hour = hourOf(at);
    if (hour > oldestHour) seen[hour] = (seen[hour] ?? 0) + 1;
  }
  const abuse: ReputationItem['abuse'] = {};
  const abusedAt: number[] = [];
  for (const ledger of ledgers) {
    const own = ownAbuseOf(ledger);
    for (const kind of NETWORK_ABUSE_KINDS) {
      const mine = own[kind];
      if (!mine) continue;
      const s = abuse[kind];
      abuse[kind] = s
        ? { at: [...s.at, mine.first], last: Math.max(s.last, mine.last) }
        : { at: [mine.first], last: mine.last };
    }
    const first = earliestCause(own);
    if (first !== undefined) abusedAt.push(first);
  }
  for (const s of Object.values(abuse)) ascending(s.at);
  return {
    merchants: sightings.length,
    ...(sightings.length > 0 ? { firstSeenAt: Math.min(...sightings) } : {}),
    abuse,
    abusedAt: ascending(abusedAt),
    seen,
  };
}

const countUpTo = (times: readonly number[] | undefined, at: number) =>
  (times ?? []).filter((t) => t <= at).length;

/**
 * What a member's decision sees: the reputation less its own summary, as of the event's time `at`.
 * Confirmed abuse counts merchants, not causes: a merchant counts from its earliest cause, and
 * nothing shows until NETWORK_ABUSE_FLOOR other merchants have confirmed abuse on the identity (one
 * merchant's reports, however many, reveal nothing). First sightings are exact by hour within the
 * kept hours.
 */
export function reputationAsOf(
  ref: IdentityRef,
  item: ReputationItem | undefined,
  own: OwnSummary | undefined,
  at: number,
): NetworkReputation {
  const ownFirst = earliestCause(own?.abuse ?? {});
  const abuseMerchants = countUpTo(item?.abusedAt, at) - (ownFirst !== undefined && ownFirst <= at ? 1 : 0);
  const shown = abuseMerchants >= NETWORK_ABUSE_FLOOR;
  const abuse = Object.fromEntries(
    NETWORK_ABUSE_KINDS.map((kind) => {
      const all = item?.abuse[kind];
      const mine = own?.abuse[kind];
      const count = shown ? Math.max(0, countUpTo(all?.at, at) - (mine && mine.first <= at ? 1 : 0)) : 0;
      return [kind, { count, latestAt: count > 0 && all ? Math.min(all.last, at) : undefined }];
    }),
  ) as NetworkReputation['abuse'];
  const fromHour = hourOf(at - DAY_MS);
  const toHour = hourOf(at);
  let recent = 0;
  for (const [hour, count] of Object.entries(item?.seen ?? {})) {
    const h = Number(hour);
    if (h > fromHour && h <= toHour) recent += count;
  }
  const ownSeen = own?.seenAt;
  if (ownSeen !== undefined && hourOf(ownSeen) > fromHour && hourOf(ownSeen) <= toHour) recent -= 1;
  const mineSeen = ownSeen !== undefined ? 1 : 0;
  return {
    ref,
    abuseMerchants: shown ? abuseMerchants : 0,
    abuse,
    newMerchantsLastDay: Math.max(0, recent),
    merchants: Math.max(0, (item?.merchants ?? 0) - mineSeen),
    firstSeenAt: item?.firstSeenAt !== undefined && item.firstSeenAt <= at ? item.firstSeenAt : undefined,
  };
}
