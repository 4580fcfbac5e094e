import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EventType } from '../../shared/contract/endpoints.ts';
import { duckDbRunner, type LakeQueryRunner } from '../../shared/lake/lake-queries.ts';
import { NO_FEEDBACK } from '../../shared/lake/lake-rows.ts';
import type { LakeRow } from '../../shared/lake/lake-tables.ts';
import { appendLakeRows, openLocalLake } from '../../shared/lake/local-lake.ts';
import { readTrainingSet } from '../../shared/lake/training-set.ts';
import { classifyEvents } from '../../shared/learning/labels.ts';
import { decidedLakeRows } from '../support/lake-rows.ts';

/**
 * The trade-off histogram is labelled in SQL (queries/tradeoff_histogram.sql): on DuckDB, over a
 * lake of every kind of feedback, its cells are the ones labels.ts gives the same events, counted
 * the same way, for orders, returns and account events.
 */
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-20T12:00:00.000Z');
const M = 'mer_h';
const day = (at: number) => new Date(at).toISOString().slice(0, 10);

/** A seeded generator: the lake is the same on every run. */
let seed = 7;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;

function decided(kind: EventType, id: string, at: number, identities: string[], parts = 1, revision = 0) {
  return decidedLakeRows({ merchantId: M, kind, id, at, identities, parts, revision }, () => ({
    decision: pick(['APPROVE', 'APPROVE', 'APPROVE', 'DECLINE', 'REVIEW']),
    abuse_score: Math.floor(random() * 101),
    value: kind === 'order' || kind === 'return' ? pick([5, 20, 20.5, 80, 400]) : null,
    signals: '{}',
    sample_key: random(),
  }));
}
function feedback(
  kind: 'dispute' | 'disposition' | 'review',
  at: number,
  values: object,
  revision = 0,
): LakeRow {
  return {
    table: 'feedback',
    kind,
    merchantId: M,
    day: day(at),
    values: { ...NO_FEEDBACK, feedback_at: at, revision, changed_at: at + revision, ...values },
  } as LakeRow;
}

const rows: LakeRow[] = [];
const ago = (days: number) => NOW - days * DAY;
const identityOf = (i: number) => [
  `customer#c${i % 40}`,
  `email#e${i % 55}`,
  `device#d${i % 30}`,
  `card#k${i % 20}`,
];
for (let i = 0; i < 600; i++) {
  const at = ago(random() * 130);
  rows.push(...decided('order', `o${i}`, at, identityOf(i)));
  if (random() < 0.12) {
    const status = pick(['LOST', 'LOST', 'WON', 'OPEN', 'RESPONDED']);
    rows.push(
      feedback('dispute', at + 20 * DAY * random(), {
        feedback_id: `d${i}`,
        order_id: `o${i}`,
        dispute_status: 'OPEN',
      }),
    );
    rows.push(
      feedback(
        'dispute',
        Math.min(NOW, at + 30 * DAY),
        { feedback_id: `d${i}`, order_id: `o${i}`, dispute_status: status },
        1,
      ),
    );
  }
  if (random() < 0.04)
    rows.push(
      feedback('review', at + DAY, {
        feedback_id: `r-o${i}`,
        event_key: `ORDER#o${i}`,
        review_outcome: pick(['abuse', 'legitimate']),
      }),
    );
}
// A revised order: its latest revision is what counts.
rows.push(...decided('order', 'o1', ago(70), identityOf(1), 1, 3));
for (let i = 0; i < 250; i++) {
  const at = ago(random() * 120);
  const lines = 1 + Math.floor(random() * 3);
  rows.push(...decided('return', `t${i}`, at, identityOf(i * 3), lines));
  for (let line = 0; line < lines; line++)
    if (random() < 0.3)
      rows.push(
        feedback('disposition', at + 5 * DAY * random(), {
          feedback_id: `t${i}`,
          return_id: `t${i}`,
          line,
          item_condition: pick(['HEAVILY_USED', 'HEAVILY_USED', 'EMPTY_BOX', 'NEW', 'COUNTERFEIT_ITEM']),
          disposition_outcome: pick(['RESTOCK', 'REMOVE_SUSPECT_ABUSE', 'REFURBISH']),
        }),
      );
}
for (const kind of ['signup', 'login'] as const)
  for (let i = 0; i < 300; i++) {
    const at = ago(random() * 140);
    rows.push(...decided(kind, `${kind}${i}`, at, identityOf(i * 7)));
    if (random() < 0.03)
      rows.push(
        feedback('review', at + DAY, {
          feedback_id: `r-${kind}${i}`,
          event_key: `${kind.toUpperCase()}#${kind}${i}`,
          review_outcome: pick(['abuse', 'legitimate']),
        }),
      );
  }

/**
 * A second merchant whose logins each test one way abuse can or cannot reach them: the identities of
 * a login's latest revision (not an older one's), abuse landing within its label window (not before
 * it, not after it), on a customer, e-mail or device (not a card). Each login has a score of its own,
 * so its cell tells its label; at 90 days and half an hour old its window has closed (settled).
 */
const R = 'mer_h_revisions';
const settledAt = ago(90) - 1_800_000;
function plain(kind: EventType, id: string, at: number, identities: string[], score: number, revision = 0) {
  return decidedLakeRows({ merchantId: R, kind, id, at, identities, revision }, () => ({
    decision: 'APPROVE',
    abuse_score: score,
    value: null,
    signals: '{}',
    sample_key: 0.5,
  }));
}
const lost = (orderId: string, at: number): LakeRow =>
  ({
    ...feedback('dispute', at, { feedback_id: `d-${orderId}`, order_id: orderId, dispute_status: 'LOST' }),
    merchantId: R,
  }) as LakeRow;
const revisionRows: LakeRow[] = [
  // Abuse lands on device#bad (and card#bad) 30 days after the logins; on device#early a day before
  // them; on device#late ten minutes before now, after their 90-day windows closed.
  ...plain('order', 'bad', ago(60), ['device#bad', 'card#bad', 'email#bad'], 50),
  lost('bad', ago(40)),
  ...plain('order', 'early', settledAt - DAY, ['device#early'], 50),
  lost('early', ago(80)),
  ...plain('order', 'late', NOW - 600_000, ['device#late'], 50),
  lost('late', NOW - 300_000),
  // An order on the abusive device is not linked: only account events inherit abuse.
  ...plain('order', 'shared', ago(70), ['device#bad'], 40),
  ...plain('login', 'linked', settledAt, ['device#bad'], 11),
  ...plain('login', 'was-linked', settledAt, ['device#bad'], 12),
  ...plain('login', 'was-linked', settledAt, ['device#clean1'], 12, 1),
  ...plain('login', 'now-linked', settledAt, ['device#clean2'], 13),
  ...plain('login', 'now-linked', settledAt, ['email#bad'], 13, 1),
  ...plain('login', 'early', settledAt, ['device#early'], 14),
  ...plain('login', 'late', settledAt, ['device#late'], 15),
  ...plain('login', 'card', settledAt, ['card#bad'], 16),
];

let run: LakeQueryRunner;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tradeoff-histogram-'));
  const lake = await openLocalLake(dir);
  await appendLakeRows(lake, dir, [...rows, ...revisionRows]);
  run = duckDbRunner(lake);
});

const cellKey = ([score, label, value]: number[]) =>
  `${score}|${label}|${Math.floor(Math.log(1 + value!) * 8)}`;

describe('the trade-off histogram (SQL labels) agrees with labels.ts', () => {
  it.each(['order', 'return', 'signup', 'login'] as const)('%s', async (eventType) => {
    // Training's rows over the same 90 days, all of them (no sampling), labelled by labels.ts.
    const set = await readTrainingSet(run, {
      merchantId: M,
      eventType,
      now: NOW,
      windowDays: 90,
      maxRows: 1e9,
    });
    expect(set.negativeSamplingRate).toBe(1);
    const own = set.events.filter((e) => e.eventType === eventType && e.at <= set.latestEventTime!);
    const { labeled, censored } = classifyEvents(eventType, set.events, set.feedback, set.latestEventTime!);
    const settled = labeled.filter((row) => !row.provisional);
    const expected = new Map<string, { parts: number; values: number }>();
    for (const row of settled) {
      const key = cellKey([row.abuseScore, row.label, row.value ?? 0]);
      const cell = expected.get(key) ?? { parts: 0, values: 0 };
      expected.set(key, { parts: cell.parts + 1, values: cell.values + (row.value ?? 0) });
    }
    const { cells, excluded } = set.tradeoffs;
    expect(new Map(cells.map((cell) => [cellKey(cell), cell[3]]))).toEqual(
      new Map([...expected].map(([key, cell]) => [key, cell.parts])),
    );
    for (const cell of cells) expect(cell[2]).toBeCloseTo(expected.get(cellKey(cell))!.values / cell[3], 2);
    const parts = own.reduce((n, e) => n + e.parts.length, 0);
    expect(excluded).toEqual({
      censored: censored.length,
      unlabeled: parts - settled.length - censored.length,
    });
    // The lake holds every kind of answer: both labels settled, some open, some censored.
    expect(new Set(cells.map((cell) => cell[1]))).toEqual(new Set([0, 1]));
    expect(excluded.unlabeled).toBeGreaterThan(0);
    expect(excluded.censored).toBeGreaterThan(0);
  });
});

describe('the trade-off histogram links an account event to abuse', () => {
  const labelsByScore = async (eventType: EventType) => {
    const { tradeoffs } = await readTrainingSet(run, {
      merchantId: R,
      eventType,
      now: NOW,
      windowDays: 90,
      maxRows: 1e9,
    });
    return Object.fromEntries(tradeoffs.cells.map(([score, label, , parts]) => [score, { label, parts }]));
  };

  it('through the identities of its latest revision, within its label window, on customer, e-mail or device', async () => {
    expect(await labelsByScore('login')).toEqual({
      11: { label: 1, parts: 1 },
      12: { label: 0, parts: 1 },
      13: { label: 1, parts: 1 },
      14: { label: 0, parts: 1 },
      15: { label: 0, parts: 1 },
      16: { label: 0, parts: 1 },
    });
  });

  it('never for orders, whatever identity they share with abuse', async () => {
    expect((await labelsByScore('order'))[40]).toEqual({ label: 0, parts: 1 });
  });
});
