import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
