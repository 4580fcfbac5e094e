import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  distinctCount,
  fingerprintOf,
  MAX_DISTINCT_PER_BUCKET,
  staleVelocityBuckets,
  velocityAttributesForEvent,
} from '../../shared/store/distinct-windows.ts';
import { attributesForEvent, windowedCount } from '../../shared/store/history-windows.ts';

const DAY_MS = 86_400_000;

describe('windowedCount', () => {
  it.each<[string, number, Partial<Record<string, number>>]>([
    ['5 minutes ago: every window', 5 * 60_000, { m15: 1, h1: 1, h24: 1, d30: 1, d365: 1, lifetime: 1 }],
    ['2 hours ago: from 24 h', 2 * 3_600_000, { m15: 0, h1: 0, h24: 1, d30: 1, d365: 1 }],
    ['10 days ago: from 30 d', 10 * DAY_MS, { h24: 0, d30: 1, d365: 1 }],
    ['100 days ago: 365 d only', 100 * DAY_MS, { d30: 0, d365: 1, lifetime: 1 }],
    ['400 days ago: lifetime only', 400 * DAY_MS, { d365: 0, lifetime: 1 }],
  ])('one event %s', (_label, age, expected) => {
    const now = Date.UTC(2026, 5, 15, 12, 7);
    const item = Object.fromEntries(attributesForEvent('ord', now - age).map((a) => [a, 1]));
    expect(windowedCount(item, 'ord', now)).toMatchObject(expected);
  });

  it('lifetime read as of a late event leaves out the events after it', () => {
    const now = Date.UTC(2026, 5, 15, 12, 7);
    const item: Record<string, number> = { lastSeenAt: now };
    for (const age of [0, 2 * 3_600_000, 3 * DAY_MS, 20 * DAY_MS, 100 * DAY_MS])
      for (const a of attributesForEvent('x', now - age)) item[a] = (item[a] ?? 0) + 1;
    expect(windowedCount(item, 'x', now).lifetime).toBe(5);
    expect(windowedCount(item, 'x', now - DAY_MS).lifetime).toBe(3);
    expect(windowedCount(item, 'x', now - 50 * DAY_MS).lifetime).toBe(1);
  });

  it('windows summed on first read equal the same windows read again and as a plain object', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 400 * DAY_MS }), { maxLength: 30 }), (ages) => {
        const now = Date.UTC(2026, 5, 15);
        const item: Record<string, number> = {};
        for (const age of ages)
          for (const a of attributesForEvent('x', now - age)) item[a] = (item[a] ?? 0) + 1;
        const counts = windowedCount(item, 'x', now);
        const first = { ...counts };
        expect({ ...counts }).toEqual(first);
        expect(first.lifetime).toBe(ages.length);
        expect(first.m15 <= first.h1 && first.h1 <= first.h24 && first.h24 <= first.d30).toBe(true);
      }),
    );
  });
});

describe('distinctCount', () => {
  const at = Date.UTC(2026, 5, 15, 12, 7);
  const itemWith = (sightings: [string, number][]) => {
    const item: Record<string, Set<number>> = {};
    for (const [digest, age] of sightings) {
      for (const attribute of velocityAttributesForEvent('email', at - age)) {
        const set = item[attribute] ?? new Set<number>();
        set.add(fingerprintOf(digest));
        item[attribute] = set;
      }
    }
    return item;
  };

  it('counts distinct identities per window, once however often seen, leaving out the own ones', () => {
    const item = itemWith([
      ['AAAAaaaa', 2 * 60_000],
      ['AAAAaaaa', 3 * 60_000],
      ['BBBBbbbb', 40 * 60_000],
      ['CCCCcccc', 5 * 3_600_000],
      ['DDDDdddd', 2 * DAY_MS],
    ]);
    expect(distinctCount(item, 'email', at)).toEqual({ m15: 1, h1: 2, h24: 3 });
    expect(distinctCount(item, 'email', at, [fingerprintOf('AAAAaaaa')])).toEqual({ m15: 0, h1: 1, h24: 2 });
    // Read as of an earlier time, later sightings are outside every window.
    expect(distinctCount(item, 'email', at - 4 * 3_600_000)).toEqual({ m15: 0, h1: 0, h24: 1 });
  });

  it('keeps at most (4 + 8) buckets of 8 members per linked kind: stale ones are marked for removal', () => {
    const item = itemWith(Array.from({ length: 50 }, (_, i): [string, number] => [`E${i}xx`, i * 3_600_000]));
    const live = Object.keys(item).filter((name) => !staleVelocityBuckets(item, at).includes(name));
    expect(live.length).toBeLessThanOrEqual(4 + 8);
    expect(MAX_DISTINCT_PER_BUCKET).toBe(8);
  });
});
