import { afterEach, describe, expect, it } from 'vitest';
import { keepRecordsThroughReplay } from '../../eval/clock.ts';
import { DEFAULT_RETENTION_DAYS, type RetainedKind, retainUntil } from '../../shared/retention.ts';

const DAY = 86_400_000;
const saved = process.env.RETENTION_DAYS;

afterEach(() => {
  if (saved === undefined) delete process.env.RETENTION_DAYS;
  else process.env.RETENTION_DAYS = saved;
});

describe('a replay on the simulated clock against DynamoDB Local (TTL on the real clock)', () => {
  it('keeps a record written at its first event at least its retention from today, for every kind', () => {
    const today = Date.parse('2026-11-29T10:37:00Z');
    const first = today - 406 * DAY;
    // Without it, an order of the replay's first week expires before the replay reaches its dispute.
    expect(retainUntil('events', first) * 1000).toBeLessThan(today);
    keepRecordsThroughReplay(first, today);
    for (const kind of Object.keys(DEFAULT_RETENTION_DAYS) as RetainedKind[]) {
      expect(retainUntil(kind, first) * 1000).toBeGreaterThanOrEqual(
        today + DEFAULT_RETENTION_DAYS[kind] * DAY,
      );
      expect(retainUntil(kind, first) * 1000).toBeLessThan(today + (DEFAULT_RETENTION_DAYS[kind] + 2) * DAY);
    }
  });

  it('keeps a replay of today a day or two longer than production, for the run itself', () => {
    const today = Date.parse('2026-11-29T10:37:00Z');
    keepRecordsThroughReplay(today - 60_000, today);
    const kept = retainUntil('events', today) * 1000 - today;
    expect(kept).toBeGreaterThanOrEqual((DEFAULT_RETENTION_DAYS.events + 1) * DAY - 1000);
    expect(kept).toBeLessThanOrEqual((DEFAULT_RETENTION_DAYS.events + 2) * DAY);
  });
});
