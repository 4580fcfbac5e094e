import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventType } from '../../shared/contract/endpoints.ts';
import { duckDbRunner, type LakeQueryRunner } from '../../shared/lake/lake-queries.ts';
import { NO_FEEDBACK } from '../../shared/lake/lake-rows.ts';
import type { LakeRow } from '../../shared/lake/lake-tables.ts';
import { appendLakeRows, openLocalLake } from '../../shared/lake/local-lake.ts';
import { decidedLakeRows } from '../support/lake-rows.ts';

/**
 * training_events selects each part at its latest revision, and the latest revision decides whether it
 * qualifies: an older revision that carried an identity abuse lands on, or a sample key below the
 * rate, brings nothing in; a newest one that does brings the part in. The same holds for the events
 * with feedback that lend their identities: their latest revision's identities, as labels.ts reads
 * them from training_sources.
 */
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const M = 'mer_rev';
const day = (at: number) => new Date(at).toISOString().slice(0, 10);
const RATE = 0.5;
const UNSAMPLED = 0.9;
const SAMPLED = 0.1;

function event(
  kind: EventType,
  id: string,
  identities: string[],
  revisions: { sampleKey: number; identities?: string[] }[],
): LakeRow[] {
  return revisions.flatMap((revision, number) =>
    decidedLakeRows(
      {
        merchantId: M,
        kind,
        id,
        at: NOW - 10 * DAY,
        identities: revision.identities ?? identities,
        revision: number,
      },
      () => ({
        decision: 'APPROVE',
        abuse_score: number,
        value: null,
        signals: '{}',
        sample_key: revision.sampleKey,
      }),
    ),
  );
}
const lost = (orderId: string): LakeRow => ({
  table: 'feedback',
  kind: 'dispute',
  merchantId: M,
  day: day(NOW - DAY),
  values: {
    ...NO_FEEDBACK,
    feedback_id: `d-${orderId}`,
    order_id: orderId,
    dispute_status: 'LOST',
    feedback_at: NOW - DAY,
    revision: 0,
    changed_at: NOW - DAY,
  },
});

const unsampled = { sampleKey: UNSAMPLED };
const rows: LakeRow[] = [
  // Disputed orders: o-bad on device#bad all along; o-moved on device#gone, then on device#kept.
  ...event('order', 'o-bad', ['device#bad'], [unsampled]),
  lost('o-bad'),
  ...event(
    'order',
    'o-moved',
    [],
    [
      { sampleKey: UNSAMPLED, identities: ['device#gone'] },
      { sampleKey: UNSAMPLED, identities: ['device#kept'] },
    ],
  ),
  lost('o-moved'),
  ...event(
    'signup',
    'was-linked',
    [],
    [
      { sampleKey: UNSAMPLED, identities: ['device#bad'] },
      { sampleKey: UNSAMPLED, identities: ['device#clean'] },
    ],
  ),
  ...event(
    'signup',
    'now-linked',
    [],
    [
      { sampleKey: UNSAMPLED, identities: ['device#clean'] },
      { sampleKey: UNSAMPLED, identities: ['device#bad'] },
    ],
  ),
  ...event('signup', 'was-sampled', ['device#clean'], [{ sampleKey: SAMPLED }, unsampled]),
  ...event('signup', 'now-sampled', ['device#clean'], [unsampled, { sampleKey: SAMPLED }]),
  ...event('signup', 'on-gone', ['device#gone'], [unsampled]),
  ...event('signup', 'on-kept', ['device#kept'], [unsampled]),
  ...event('signup', 'unlinked', ['device#clean'], [unsampled]),
];

let run: LakeQueryRunner;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'training-revisions-'));
  const lake = await openLocalLake(dir);
  await appendLakeRows(lake, dir, rows);
  run = duckDbRunner(lake);
});

/** The parts training_events selects of one kind over the last 90 days, sampled at RATE. */
const selected = (kind: EventType) =>
  run('training_events', {
    merchant_id: M,
    kind,
    from_day: day(NOW - 90 * DAY),
    to_day: day(NOW),
    link_identities: kind === 'signup',
    negative_rate: RATE,
  });

describe('training_events: the latest revision decides whether a part qualifies', () => {
  it('for account events: linked or sampled at its newest revision, through the newest identities of the events with feedback', async () => {
    expect((await selected('signup')).map((r) => [r.event_id, r.abuse_score, r.identities]).sort()).toEqual([
      ['now-linked', 1, ['device#bad']],
      ['now-sampled', 1, ['device#clean']],
      ['on-kept', 0, ['device#kept']],
    ]);
  });

  it('for orders: feedback or a sample key below the rate at the newest revision', async () => {
    expect((await selected('order')).map((r) => [r.event_id, r.abuse_score]).sort()).toEqual([
      ['o-bad', 0],
      ['o-moved', 1],
    ]);
  });
});
