import type { IdentityRef } from '../identity/identities.ts';
import {
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
 *   merchants and the earliest first sighting, per abuse kind the count and first/latest time, and
 *   merchants first seeing it per hour for the last NEW_SIGHTING_HOURS hours. No merchant id, no
 *   cause, no amount: under 1 KB whatever the traffic.
 * - A merchant's own summary (its ledger's counts, kept on its own identity item by the same
 *   transaction) lets its decisions take its own contribution out without another read.
 */
export interface NetworkLedger {
  /** Event time of the merchant's first sighting of the identity. */
  seenAt?: number;
  causes: Record<string, { kind: NetworkAbuseKind; at: number }>;
}

/** Abuse of one kind: the count and the first and latest times. */
interface AbuseSummary {
  n: number;
  first: number;
  last: number;
}

export interface OwnSummary {
  seenAt?: number;
  abuse: Partial<Record<NetworkAbuseKind, AbuseSummary>>;
}

export interface ReputationItem {
  merchants: number;
  firstSeenAt?: number;
  abuse: Partial<Record<NetworkAbuseKind, AbuseSummary>>;
  /** Epoch hour -> merchants whose first sighting fell in it (recent hours only). */
  seen: Record<string, number>;
}

/** A ledger keeps at most this many causes: a card's 21st lost chargeback at one shop says nothing new. */
const MAX_CAUSES_PER_LEDGER = 20;
/** Hours of first sightings kept (the signal reads 24; the rest is room for late events). */
const NEW_SIGHTING_HOURS = 48;
/** Retention: network items expire this long after their last contribution. */
export const NETWORK_RETENTION_DAYS = 400;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const hourOf = (at: number) => Math.floor(at / HOUR_MS);

export const isEmptyLedger = (ledger: NetworkLedger) =>
  ledger.seenAt === undefined && Object.keys(ledger.causes).length === 0;

export function withSighting(ledger: NetworkLedger, at: number): NetworkLedger {
  if (ledger.seenAt !== undefined && ledger.seenAt <= at) return ledger;
  return { ...ledger, seenAt: at };
}

/** The ledger with `cause` at its wanted state (undefined: not contributing). */
export function withCause(
  ledger: NetworkLedger,
  cause: string,
  wanted: { kind: NetworkAbuseKind; at: number } | undefined,
): NetworkLedger {
  const current = ledger.causes[cause];
  if (!wanted) {
    if (!current) return ledger;
    const { [cause]: _gone, ...rest } = ledger.causes;
    return { ...ledger, causes: rest };
  }
  if (current && current.kind === wanted.kind && current.at === wanted.at) return ledger;
  if (!current && Object.keys(ledger.causes).length >= MAX_CAUSES_PER_LEDGER) return ledger;
  return { ...ledger, causes: { ...ledger.causes, [cause]: wanted } };
}

export const sameLedger = (a: NetworkLedger, b: NetworkLedger) =>
  a.seenAt === b.seenAt && JSON.stringify(sortedCauses(a)) === JSON.stringify(sortedCauses(b));
const sortedCauses = (ledger: NetworkLedger) =>
  Object.entries(ledger.causes).sort(([x], [y]) => (x < y ? -1 : 1));

function abuseOf(ledgers: readonly NetworkLedger[]): ReputationItem['abuse'] {
  const abuse: ReputationItem['abuse'] = {};
  for (const ledger of ledgers) {
    for (const { kind, at } of Object.values(ledger.causes)) {
      const s = abuse[kind];
      abuse[kind] = s
        ? { n: s.n + 1, first: Math.min(s.first, at), last: Math.max(s.last, at) }
        : { n: 1, first: at, last: at };
    }
  }
  return abuse;
}

export function ownSummaryOf(ledger: NetworkLedger): OwnSummary {
  return { ...(ledger.seenAt !== undefined ? { seenAt: ledger.seenAt } : {}), abuse: abuseOf([ledger]) };
}

/** The reputation the ledgers make, first sightings kept for the hours before `now`. */
export function reputationOf(ledgers: readonly NetworkLedger[], now: number): ReputationItem {
  const sightings = ledgers.flatMap((l) => (l.seenAt === undefined ? [] : [l.seenAt]));
  const oldestHour = hourOf(now) - NEW_SIGHTING_HOURS;
  const seen: Record<string, number> = {};
  for (const at of sightings) {
    const hour = hourOf(at);
    if (hour > oldestHour) seen[hour] = (seen[hour] ?? 0) + 1;
  }
  return {
    merchants: sightings.length,
    ...(sightings.length > 0 ? { firstSeenAt: Math.min(...sightings) } : {}),
    abuse: abuseOf(ledgers),
    seen,
  };
}

/**
 * What a member's decision sees: the reputation less its own summary, as of the event's time `at`.
 * Exact for first sightings within the kept hours; an abuse kind counts when its first cause is
 * before `at`, in full (a back-filled event may see a later cause of the same kind).
 */
export function reputationAsOf(
  ref: IdentityRef,
  item: ReputationItem | undefined,
  own: OwnSummary | undefined,
  at: number,
): NetworkReputation {
  const abuse = Object.fromEntries(
    NETWORK_ABUSE_KINDS.map((kind) => {
      const all = item?.abuse[kind];
      const mine = own?.abuse[kind];
      const count = all && all.first <= at ? Math.max(0, all.n - (mine?.n ?? 0)) : 0;
      return [kind, { count, latestAt: count > 0 ? Math.min(all!.last, at) : undefined }];
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
    abuse,
    newMerchantsLastDay: Math.max(0, recent),
    merchants: Math.max(0, (item?.merchants ?? 0) - mineSeen),
    firstSeenAt: item?.firstSeenAt !== undefined && item.firstSeenAt <= at ? item.firstSeenAt : undefined,
  };
}
