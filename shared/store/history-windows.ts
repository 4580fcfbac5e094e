import type { WindowedCount } from '../scoring/identity-snapshot.ts';

/**
 * Time buckets of identity counters. Each counted event adds to a lifetime total and to three
 * buckets: a 15-minute one (kept 24 h), a day (kept 31 days) and a week (kept 53 weeks). Windows
 * are read from them: 15 min and 1 h and 24 h from quarters, 30 d from days, 365 d from weeks.
 * Pure functions, shared by the writer (which prunes stale buckets) and the reader.
 */
const QUARTER_MS = 15 * 60_000;
const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

export type Granularity = 'q' | 'd' | 'w';

const BUCKETS: Record<Granularity, { size: number; keep: number }> = {
  q: { size: QUARTER_MS, keep: 96 },
  d: { size: DAY_MS, keep: 31 },
  w: { size: WEEK_MS, keep: 53 },
};

export const WINDOWS = {
  m15: { granularity: 'q', count: 1 },
  h1: { granularity: 'q', count: 4 },
  h24: { granularity: 'q', count: 96 },
  d30: { granularity: 'd', count: 30 },
  d365: { granularity: 'w', count: 52 },
} as const satisfies Record<string, { granularity: Granularity; count: number }>;

export type WindowName = keyof typeof WINDOWS | 'lifetime';
/** The counts scoring reads (shared/scoring/identity-snapshot.ts); WINDOWS must provide each. */
export type { WindowedCount };

export const lifetimeAttribute = (metric: string) => `c_${metric}`;
export const bucketAttribute = (metric: string, granularity: Granularity, index: number) =>
  `${granularity}_${metric}_${index}`;

export function bucketIndex(granularity: Granularity, at: number): number {
  return Math.floor(at / BUCKETS[granularity].size);
}

/** The bucket attributes one event at `at` adds to, lifetime first. */
export function attributesForEvent(metric: string, at: number): string[] {
  return [
    lifetimeAttribute(metric),
    ...(['q', 'd', 'w'] as const).map((g) => bucketAttribute(metric, g, bucketIndex(g, at))),
  ];
}

/** A family of time buckets: per granularity (the attribute prefix), bucket size and buckets kept. */
export type BucketScheme = Readonly<Record<string, { size: number; keep: number }>>;

const BUCKET_ATTRIBUTE = /^([a-z]+)_(.+)_(\d+)$/;

/** Attributes `<granularity>_<name>_<index>` of a scheme that have aged out of retention at `at`. */
export function staleAttributes(item: Record<string, unknown>, scheme: BucketScheme, at: number): string[] {
  return Object.keys(item).filter((name) => {
    const match = BUCKET_ATTRIBUTE.exec(name);
    const bucket = match ? scheme[match[1]!] : undefined;
    return bucket !== undefined && Number(match![3]) <= Math.floor(at / bucket.size) - bucket.keep;
  });
}

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
 * own time: weeks after its week, days after its day within its week, quarters after its quarter
 * within its day (each event is in all three, so nothing counts twice). Exact while those buckets
 * are kept (a day of quarters, a month of days, a year of weeks); nothing to do for an event later
 * than everything the identity has seen, which is every live event.
 */
function countedAfter(item: Record<string, unknown>, metric: string, at: number): number {
  if (!(typeof item.lastSeenAt === 'number' && item.lastSeenAt > at)) return 0;
  const week = bucketIndex('w', at);
  const day = bucketIndex('d', at);
  let later = 0;
  const sum = (granularity: Granularity, from: number, to: number) => {
    for (let index = from; index <= to; index++)
      later += numberOf(item[bucketAttribute(metric, granularity, index)]);
  };
  sum('w', week + 1, week + BUCKETS.w.keep);
  sum('d', day + 1, Math.floor(((week + 1) * WEEK_MS - 1) / DAY_MS));
  sum('q', bucketIndex('q', at) + 1, Math.floor(((day + 1) * DAY_MS - 1) / QUARTER_MS));
  return later;
}

function numberOf(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}
