/**
 * Velocity of distinct identities (e-mails per device in the last 15 min, ...), kept in bounded
 * space per identity item. Each time bucket holds a DynamoDB number set of 16-bit fingerprints of
 * the linked identities seen in it: adding to a set is commutative and idempotent, so racing and
 * out-of-order writes land in the right bucket and a replayed write counts once.
 *
 * Buckets: 15-minute ones (the 15 min window is the current one, 1 h the current and three
 * previous) and 3-hour ones (24 h: the current and seven previous). A window's count is the size of
 * the union of its buckets. The approximation:
 * - windows are bucket-aligned, like the counters (a "1 h" window spans 45 to 60 minutes);
 * - a bucket stops taking new members at MAX_DISTINCT_PER_BUCKET, so counts saturate there;
 * - two identities share a fingerprint with probability about n^2 / 2^17 (0.05% at the cap);
 * - a late event sees the members its bucket got from events after it in the same bucket.
 * Storage per tracked pair is at most (4 + 8 buckets) x 8 small numbers; stale buckets are removed by
 * the write that adds new ones. Pure functions, shared by the writer and the reader.
 */
import type { IdentityKind } from '../identity/identities.ts';
import type { DistinctCount, VelocityWindow } from '../scoring/identity-snapshot.ts';
import { type BucketScheme, staleAttributes } from './history-windows.ts';

const QUARTER_MS = 15 * 60_000;
const THREE_HOURS_MS = 3 * 3_600_000;

type VelocityGranularity = 'vq' | 'vh';

const BUCKETS = {
  vq: { size: QUARTER_MS, keep: 4 },
  vh: { size: THREE_HOURS_MS, keep: 8 },
} as const satisfies BucketScheme & Record<VelocityGranularity, unknown>;

const VELOCITY_WINDOWS = {
  m15: { granularity: 'vq', count: 1 },
  h1: { granularity: 'vq', count: 4 },
  h24: { granularity: 'vh', count: 8 },
} as const satisfies Record<VelocityWindow, { granularity: VelocityGranularity; count: number }>;

/** A bucket stops growing here: the signal is saturated long before. */
export const MAX_DISTINCT_PER_BUCKET = 8;

/** Which linked kinds are counted per identity kind: the pairs rings cannot avoid reusing. */
const VELOCITY_LINKS: Partial<Record<IdentityKind, readonly IdentityKind[]>> = {
  device: ['email', 'customer', 'card'],
  card: ['email'],
  address: ['customer'],
};

export const tracksVelocity = (kind: IdentityKind, linked: IdentityKind): boolean =>
  VELOCITY_LINKS[kind]?.includes(linked) ?? false;

const bucketIndex = (granularity: VelocityGranularity, at: number) =>
  Math.floor(at / BUCKETS[granularity].size);

/** `<granularity><index><kind>`, the counters' compact naming (history-windows.ts). */
const velocityAttribute = (kind: string, granularity: VelocityGranularity, index: number) =>
  `${granularity}${index}${kind}`;

/** The bucket attributes one sighting of a linked `kind` at `at` adds to. */
export function velocityAttributesForEvent(kind: string, at: number): string[] {
  return (['vq', 'vh'] as const).map((g) => velocityAttribute(kind, g, bucketIndex(g, at)));
}

/**
 * 16 bits of an identity digest (base64url of a SHA-256, so uniformly distributed): a DynamoDB
 * number of at most 5 digits, 4 bytes in a set.
 */
export function fingerprintOf(digest: string): number {
  return Buffer.from(digest.slice(0, 4), 'base64url').readUInt16BE(0);
}

/** Velocity buckets of a stored item that have aged out of retention at `at`. */
export const staleVelocityBuckets = (item: Record<string, unknown>, at: number): string[] =>
  staleAttributes(item, BUCKETS, at);

/** Members of a stored bucket (a DynamoDB number set reads as a Set of numbers). */
export function bucketMembers(item: Record<string, unknown> | undefined, attribute: string): Set<number> {
  const value = item?.[attribute];
  return value instanceof Set ? (value as Set<number>) : new Set();
}

/**
 * Distinct identities of `kind` linked to the item in each window ending at `at`, leaving out the
 * given fingerprints (the event's own identities: "other e-mails on this device").
 */
export function distinctCount(
  item: Record<string, unknown> | undefined,
  kind: string,
  at: number,
  exclude: readonly number[] = [],
): DistinctCount {
  const count = (window: VelocityWindow): number => {
    if (!item) return 0;
    const { granularity, count: buckets } = VELOCITY_WINDOWS[window];
    const current = bucketIndex(granularity, at);
    const union = new Set<number>();
    for (let index = current - buckets + 1; index <= current; index++) {
      for (const member of bucketMembers(item, velocityAttribute(kind, granularity, index)))
        union.add(member);
    }
    for (const own of exclude) union.delete(own);
    return union.size;
  };
  return { m15: count('m15'), h1: count('h1'), h24: count('h24') };
}
