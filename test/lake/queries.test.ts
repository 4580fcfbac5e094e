import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TrinoSQL } from 'dt-sql-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventType } from '../../shared/contract/endpoints.ts';
import {
  duckDbRunner,
  LAKE_QUERY_NAMES,
  type LakeQueryRunner,
  lakeQuery,
} from '../../shared/lake/lake-queries.ts';
import { NO_FEEDBACK } from '../../shared/lake/lake-rows.ts';
import type { LakeRow } from '../../shared/lake/lake-tables.ts';
import { appendLakeRows, openLocalLake } from '../../shared/lake/local-lake.ts';
import { readTrainingSet } from '../../shared/lake/training-set.ts';
import { classifyEvents } from '../../shared/learning/labels.ts';
import { sampleKeyOf } from '../../shared/learning/sampling.ts';
import { decidedLakeRows } from '../support/lake-rows.ts';

/**
 * Each lake query on DuckDB, on a small lake built here, against the answer computed from the same
 * rows in TypeScript; and each parses as Athena's (Trino) dialect.
 */
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const M = 'mer_q';
const day = (at: number) => new Date(at).toISOString().slice(0, 10);

function event(
  kind: EventType,
  id: string,
  at: number,
  identities: string[],
  revision = 0,
  parts = 1,
): LakeRow[] {
  return decidedLakeRows({ merchantId: M, kind, id, at, identities, parts, revision }, (part) => ({
    decision: 'APPROVE',
    abuse_score: 10 + revision,
    value: 20,
    signals: JSON.stringify({ s: part }),
    sample_key: sampleKeyOf(`${M}|${kind}`, `${kind.toUpperCase()}#${id}`, part),
  }));
}
const dispute = (orderId: string, status: string, at: number, revision: number): LakeRow => ({
  table: 'feedback',
  kind: 'dispute',
  merchantId: M,
  day: day(at),
  values: {
    ...NO_FEEDBACK,
    feedback_id: `d-${orderId}`,
    order_id: orderId,
    dispute_status: status,
    feedback_at: at,
    revision,
    changed_at: at,
  },
});
const review = (eventKey: string, outcome: string, at: number): LakeRow => ({
  table: 'feedback',
  kind: 'review',
  merchantId: M,
  day: day(at),
  values: {
    ...NO_FEEDBACK,
    feedback_id: `r-${eventKey}`,
    event_key: eventKey,
    review_outcome: outcome,
    feedback_at: at,
    revision: 0,
    changed_at: at,
  },
});

/** 400 orders over 200 days, 10 of them disputed (LOST then, for two, WON), and signups on their devices. */
const orders = Array.from({ length: 400 }, (_, i) =>
  event('order', `o${i}`, NOW - (i / 2) * DAY - 3_600_000, [`device#d${i % 50}`, `email#e${i}`]),
);
const signups = Array.from({ length: 100 }, (_, i) =>
  event('signup', `s${i}`, NOW - i * DAY - 7_200_000, [`device#d${i % 60}`]),
);
const revised = event('order', 'o3', NOW - 1.5 * DAY - 3_600_000, ['device#d3', 'email#e3'], 2);
const disputes = Array.from({ length: 10 }, (_, i) =>
  dispute(`o${i * 7}`, 'LOST', NOW - (i * 3.5 - 1) * DAY, 1),
);
const later = [dispute('o0', 'WON', NOW - 0.1 * DAY, 2), dispute('o7', 'WON', NOW - 0.2 * DAY, 2)];
const reviews = [review('SIGNUP#s5', 'abuse', NOW - DAY), review('ORDER#o11', 'legitimate', NOW - 2 * DAY)];
const all = [...orders.flat(), ...signups.flat(), ...revised, ...disputes, ...later, ...reviews];

let run: LakeQueryRunner;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lake-queries-'));
  const lake = await openLocalLake(dir);
  // Two appends: files of one partition add up, as Firehose's do.
  await appendLakeRows(lake, dir, all.slice(0, 250));
  await appendLakeRows(lake, dir, all.slice(250));
  run = duckDbRunner(lake);
});

const window = { merchant_id: M, kind: 'order', from_day: day(NOW - 180 * DAY), to_day: day(NOW) };
const inWindow = (rows: LakeRow[]) => rows.filter((r) => r.day >= window.from_day && r.day <= window.to_day);

describe('the lake queries on DuckDB', () => {
  it('every query parses as Trino (Athena engine 3) and declares each of its placeholders', () => {
    const trino = new TrinoSQL();
    for (const name of LAKE_QUERY_NAMES) {
      const query = lakeQuery(name);
      expect(trino.validate(query.text), name).toEqual([]);
      expect(query.parameters.length).toBeGreaterThan(0);
    }
    expect(new TrinoSQL().validate('SELECT 1 QUALIFY true').length).toBeGreaterThan(0);
  });

  it('event_count counts the parts of the window once each, revisions included once', async () => {
    const expected = new Set(inWindow(orders.flat()).map((r) => r.values.event_key)).size;
    expect(await run('event_count', window)).toEqual([{ parts: expected }]);
  });

  it('latest_event is the newest event of any kind', async () => {
    const newest = Math.max(
      ...all.flatMap((r) => (r.table === 'decided_events' ? [Number(r.values.event_at)] : [])),
    );
    expect(await run('latest_event', window)).toEqual([{ latest: newest }]);
  });

  it('training_feedback keeps each feedback at its latest revision', async () => {
    const rows = await run('training_feedback', window);
    const statuses = Object.fromEntries(
      rows.filter((r) => r.kind === 'dispute').map((r) => [r.order_id, r.dispute_status]),
    );
    expect(statuses).toEqual({
      ...Object.fromEntries(disputes.map((d) => [d.values.order_id, 'LOST'])),
      o0: 'WON',
      o7: 'WON',
    });
    expect(rows.filter((r) => r.kind === 'review')).toHaveLength(2);
  });

  it('training_events reads every part with feedback and samples the others by sample key, each at its latest revision', async () => {
    const rate = 0.25;
    const rows = await run('training_events', { ...window, link_identities: false, negative_rate: rate });
    const concerned = new Set([...disputes.map((d) => d.values.order_id), 'o11']);
    const expected = inWindow(orders.flat())
      .filter((r) => Number(r.values.sample_key) < rate || concerned.has(String(r.values.event_id)))
      .map((r) => r.values.event_id)
      .sort();
    expect(rows.map((r) => r.event_id).sort()).toEqual(expected);
    expect(rows.find((r) => r.event_id === 'o3')?.abuse_score ?? 12).toBe(12);
  });

  it('for account events, also reads those sharing an identity with an event that has feedback', async () => {
    const rows = await run('training_events', {
      ...window,
      kind: 'signup',
      link_identities: true,
      negative_rate: 0,
    });
    // Any event with feedback lends its identities: disputed orders, the reviewed order and signup.
    const concerned = [...orders.flat(), ...signups.flat()].filter(
      (e) =>
        disputes.some((d) => d.values.order_id === e.values.event_id) ||
        ['ORDER#o11', 'SIGNUP#s5'].includes(String(e.values.event_key)),
    );
    const abusiveDevices = new Set(concerned.map((e) => (e.values.identities as string[])[0]));
    const expected = inWindow(signups.flat())
      .filter(
        (s) => abusiveDevices.has((s.values.identities as string[])[0]) || s.values.event_key === 'SIGNUP#s5',
      )
      .map((s) => s.values.event_id)
      .sort();
    expect(rows.map((r) => r.event_id).sort()).toEqual(expected);
  });

  it('readTrainingSet gives labels.ts what the table gave it: the same labels on the rows it reads', async () => {
    const set = await readTrainingSet(run, {
      merchantId: M,
      eventType: 'order',
      now: NOW,
      windowDays: 180,
      maxRows: 100,
    });
    expect(set.partsInWindow).toBe(new Set(inWindow(orders.flat()).map((r) => r.values.event_key)).size);
    expect(set.negativeSamplingRate).toBeCloseTo(100 / set.partsInWindow);
    const { labeled } = classifyEvents('order', set.events, set.feedback, set.latestEventTime!);
    const positives = labeled
      .filter((r) => r.label === 1)
      .map((r) => r.eventKey)
      .sort();
    // LOST and still LOST: every dispute but the two WON later, whose windows (60 days) have closed or not.
    const lost = disputes
      .map((d) => `ORDER#${d.values.order_id}`)
      .filter((k) => k !== 'ORDER#o0' && k !== 'ORDER#o7');
    expect(positives).toEqual(lost.sort());
  });

  /** Each row's latest revision among `rows`, by the key the export queries keep one row per. */
  const latestOf = (rows: LakeRow[], keyOf: (row: LakeRow) => string) => {
    const latest = new Map<string, LakeRow>();
    for (const row of rows) {
      const held = latest.get(keyOf(row));
      if (!held || Number(row.values.revision) > Number(held.values.revision)) latest.set(keyOf(row), row);
    }
    return [...latest.values()];
  };

  it('export_decided_events: the kind of one merchant in the range, each part at its latest revision', async () => {
    const range = { merchant_id: M, kind: 'order', from_day: day(NOW - 10 * DAY), to_day: day(NOW - DAY) };
    const rows = await run('export_decided_events', range);
    const expected = latestOf(
      all.filter(
        (r) =>
          r.table === 'decided_events' &&
          r.kind === 'order' &&
          r.day >= range.from_day &&
          r.day <= range.to_day,
      ),
      (r) => `${r.values.event_key}#${(r.values as { part: number }).part}`,
    );
    const key = (r: { event_id: unknown; revision: unknown }) => `${r.event_id}@${r.revision}`;
    expect(rows.map((r) => key(r as never)).sort()).toEqual(
      expected.map((r) => key(r.values as never)).sort(),
    );
    expect(rows.find((r) => r.event_id === 'o3')).toMatchObject({ revision: 2, abuse_score: 12 });
    expect(Object.keys(rows[0]!)).not.toContain('sample_key');
    expect(await run('export_decided_events', { ...range, merchant_id: 'mer_other' })).toEqual([]);
  });

  it('export_feedback: each feedback whose latest revision falls in the range, as it then stands', async () => {
    const disputesIn = async (from: number, to: number) =>
      run('export_feedback', { merchant_id: M, kind: 'dispute', from_day: day(from), to_day: day(to) });
    const expected = (from: number, to: number) =>
      latestOf(
        all.filter((r) => r.table === 'feedback' && r.kind === 'dispute' && r.day >= day(from)),
        (r) => String(r.values.feedback_id),
      )
        .filter((r) => r.day <= day(to))
        .map((r) => `${r.values.feedback_id}:${(r.values as { dispute_status: string }).dispute_status}`)
        .sort();
    const seen = (rows: Record<string, unknown>[]) =>
      rows.map((r) => `${r.feedback_id}:${r.dispute_status}`).sort();
    // Up to yesterday: o0's and o7's disputes were won today, so they are not there yet as LOST either.
    const untilYesterday = await disputesIn(NOW - 40 * DAY, NOW - DAY);
    expect(seen(untilYesterday)).toEqual(expected(NOW - 40 * DAY, NOW - DAY));
    expect(seen(untilYesterday)).not.toContain('d-o0:LOST');
    const untilToday = await disputesIn(NOW - 40 * DAY, NOW);
    expect(seen(untilToday)).toEqual(expected(NOW - 40 * DAY, NOW));
    expect(seen(untilToday)).toContain('d-o0:WON');
    expect(untilToday.every((r) => r.kind === 'dispute')).toBe(true);
  });
});
