/**
 * How long each kind of record is kept, in days: the table's TTL (`expiresAt`) removes a record
 * this long after its last write. Defaults here; lib/config.ts sets them per environment and the
 * functions read them from RETENTION_DAYS (JSON, only the kinds that differ). docs/privacy.md.
 */
export const DEFAULT_RETENTION_DAYS = {
  /** Decided events (orders, returns, signups, logins, account updates) and their side items. */
  events: 400,
  /** Chargebacks are disputed for up to 540 days after the order (card networks' windows). */
  disputes: 540,
  /** An identity's counters and links: from its last event, as long as the events they summarise. */
  identities: 400,
  reviews: 400,
  /** The console's audit log. */
  audit: 730,
  /** Free text people and merchants wrote: review notes, return reasons, inspection notes. */
  freeText: 90,
  /** A list entry made without an expiry: a person's block stops after this unless made again. */
  listEntries: 730,
  /** A member's feedback waiting for (and kept after) the network worker, as long as its ledger. */
  network: 400,
  /** A privacy request's record (digests only), kept as proof that it was done. */
  privacyRequests: 1095,
  /** A bulk export's record (its range and outcome; the files expire with their links). */
  lakeExports: 400,
  /** A workflow backtest: its candidate and report, for comparing drafts, not as a record. */
  backtests: 90,
  /** An erasure's tombstone: outlives the 35 days of point-in-time recovery, replayed after a restore. */
  tombstones: 400,
} as const;
export type RetainedKind = keyof typeof DEFAULT_RETENTION_DAYS;

const DAY_S = 86_400;

function retentionDays(kind: RetainedKind, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.RETENTION_DAYS;
  if (!raw) return DEFAULT_RETENTION_DAYS[kind];
  const days = (JSON.parse(raw) as Partial<Record<RetainedKind, number>>)[kind];
  return typeof days === 'number' && days > 0 ? days : DEFAULT_RETENTION_DAYS[kind];
}

/** The TTL attribute's value (epoch seconds) for a record of `kind` written at `now` (epoch ms). */
export const retainUntil = (kind: RetainedKind, now: number): number =>
  Math.floor(now / 1000) + retentionDays(kind) * DAY_S;

/**
 * Items that live as long as the merchant and carry no expiry: its profile (with its list rules and
 * network membership) and keys, its configuration (workflows and their versions, decision settings,
 * webhook endpoints and subscriptions, models) and its rate-limit bucket. They name no customer; offboarding deletes them (docs/privacy.md). Matched
 * against an item's `entity`, or its key's shape for the items that have none.
 */
export const MERCHANT_LIFETIME_ITEMS: readonly RegExp[] = [
  /^merchant$/,
  /^apiKey$/,
  // A live workflow and its decision settings share the item.
  /^workflow$/,
  /^workflowVersion$/,
  /^webhookEndpoint$/,
  /#WEBHOOKS\|SUBSCRIPTIONS$/,
  /^modelVersion$/,
  /^modelPointers$/,
  /#RATELIMIT\|BUCKET$/,
];
