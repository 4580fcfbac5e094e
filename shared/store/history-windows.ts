import type { WindowedCount } from '../scoring/identity-snapshot.ts';

/**
 * Time buckets of identity counters. Each counted event adds to a lifetime total and to four
 * nested buckets: a quarter-hour (kept 1 h), 3 hours (kept 24 h), 3 days (kept 30 days) and 30 days
 * (kept 390 days). Windows are read from them, aligned to bucket boundaries: 15 min and 1 h from
 * quarters (as exact as before), 24 h from 3-hour buckets (21 to 24 h), 30 d from 3-day buckets (27
 * to 30 days), 365 d from 30-day buckets (360 to 390 days). Coarse buckets keep an item's size
 * fixed whatever its history: at most 36 attributes per metric (docs/scoring.md, Identities and their history).
 * Pure functions, shared by the writer (which prunes stale buckets) and the reader.
 */
const QUARTER_MS = 15 * 60_000;
const THREE_HOURS_MS = 3 * 3_600_000;
const DAY_MS = 86_400_000;

export type Granularity = 'q' | 'h' | 'd' | 'y';

/** Coarse to fine is the nesting order: each size divides the one before it. */
const BUCKETS: Record<Granularity, { size: number; keep: number }> = {
  y: { size: 30 * DAY_MS, keep: 13 },
  d: { size: 3 * DAY_MS, keep: 10 },
  h: { size: THREE_HOURS_MS, keep: 8 },
  q: { size: QUARTER_MS, keep: 4 },
};
const COARSE_TO_FINE = ['y', 'd', 'h', 'q'] as const;

const WINDOWS = {
  m15: { granularity: 'q', count: 1 },
  h1: { granularity: 'q', count: 4 },
  h24: { granularity: 'h', count: 8 },
  d30: { granularity: 'd', count: 10 },
  d365: { granularity: 'y', count: 13 },
} as const satisfies Record<string, { granularity: Granularity; count: number }>;

export type WindowName = keyof typeof WINDOWS | 'lifetime';

const lifetimeAttribute = (metric: string) => `c_${metric}`;
/** `<granularity><index><metric>`, no separators: every byte of a name is paid on every write. */
const bucketAttribute = (metric: string, granularity: Granularity, index: number) =>
  `${granularity}${index}${metric}`;

function bucketIndex(granularity: Granularity, at: number): number {
  return Math.floor(at / BUCKETS[granularity].size);
}

/** The bucket attributes one event at `at` adds to, lifetime first. */
export function attributesForEvent(metric: string, at: number): string[] {
  return [
    lifetimeAttribute(metric),
    ...COARSE_TO_FINE.map((g) => bucketAttribute(metric, g, bucketIndex(g, at))),
  ];
}

/** A family of time buckets: per granularity (the attribute prefix), bucket size and buckets kept. */
export type BucketScheme = Readonly<Record<string, { size: number; keep: number }>>;

const BUCKET_ATTRIBUTE = /^([a-z]+)(\d+)([A-Za-z]+)$/;
/** The bucket names written before items were bounded (`q_ord_1963000`): removed on the next write. */
const LEGACY_BUCKET_ATTRIBUTE = /^([a-z]+)_(.+)_(\d+)$/;

/** Attributes `<granularity><index><name>` of a scheme that have aged out of retention at `at`. */
export function staleAttributes(item: Record<string, unknown>, scheme: BucketScheme, at: number): string[] {
  return Object.keys(item).filter((name) => {
    const match = BUCKET_ATTRIBUTE.exec(name);
    const bucket = match ? scheme[match[1]!] : undefined;
    return bucket !== undefined && Number(match![2]) <= Math.floor(at / bucket.size) - bucket.keep;
  });
}

/** Bucket attributes in the unbounded format of earlier versions. */
export const legacyBuckets = (item: Record<string, unknown>): string[] =>
  Object.keys(item).filter((name) => LEGACY_BUCKET_ATTRIBUTE.test(name));

/** Counter bucket attributes of a stored item that have aged out of retention at `now`. */
export const staleBuckets = (item: Record<string, unknown>, now: number): string[] =>
  staleAttributes(item, BUCKETS, now);

/**
 * Counts of one metric over every window, from a stored item. Windows are summed on first read
 * (signals mostly read one: a year of weeks, an hour of quarters), which keeps scoring well under a
 * millisecond; each read is then cached on the returned object.
 */
export function windowedCount(
  item: Record<string, unknown> | undefined,
  metric: string,
  now: number,
): WindowedCount {
  if (!item) return { m15: 0, h1: 0, h24: 0, d30: 0, d365: 0, lifetime: 0 };
  const sums: Partial<Record<keyof typeof WINDOWS, number>> = {};
  const sum = (name: keyof typeof WINDOWS): number => {
    const cached = sums[name];
    if (cached !== undefined) return cached;
    const window = WINDOWS[name];
    const current = bucketIndex(window.granularity, now);
    let total = 0;
    for (let index = current - window.count + 1; index <= current; index++) {
      total += numberOf(item[bucketAttribute(metric, window.granularity, index)]);
    }
    sums[name] = total;
    return total;
  };
  return {
    lifetime: numberOf(item[lifetimeAttribute(metric)]) - countedAfter(item, metric, now),
    get m15() {
      return sum('m15');
    },
    get h1() {
      return sum('h1');
    },
    get h24() {
      return sum('h24');
    },
    get d30() {
      return sum('d30');
    },
    get d365() {
      return sum('d365');
    },
  };
}

/**
 * What the lifetime total holds from events after `at`, so a late event reads the total as of its
 * own time: the 30-day buckets after its own, then within its 30 days the 3-day buckets after its
 * own, and so on down to quarters (each event is in every granularity and the sizes nest, so
 * nothing counts twice). Exact while those buckets are kept; nothing to do for an event later
 * than everything the identity has seen, which is every live event.
 */
function countedAfter(item: Record<string, unknown>, metric: string, at: number): number {
  if (!(typeof item.lastSeenAt === 'number' && item.lastSeenAt > at)) return 0;
  let later = 0;
  let parentEnd: number | undefined;
  for (const granularity of COARSE_TO_FINE) {
    const { size, keep } = BUCKETS[granularity];
    const own = bucketIndex(granularity, at);
    const last = parentEnd === undefined ? own + keep : Math.floor((parentEnd - 1) / size);
    for (let index = own + 1; index <= last; index++)
      later += numberOf(item[bucketAttribute(metric, granularity, index)]);
    parentEnd = (own + 1) * size;
  }
  return later;
}

function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}
