import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { duckDbRunner, type LakeQueryRunner } from '../../shared/lake/lake-queries.ts';
import type { LakeRow } from '../../shared/lake/lake-tables.ts';
import { appendLakeRows, openLocalLake } from '../../shared/lake/local-lake.ts';
import { readOverviewRollup } from '../../shared/lake/overview-rollup.ts';
import { decidedLakeRows } from '../support/lake-rows.ts';

/**
 * The overview's rollup (queries/overview_rollup.sql) on DuckDB against the same counts made in
 * TypeScript from the rows written: latest revision only, one count per decision part, scores banded
 * by ten with 100 in the top band, other merchants, kinds and days left out.
 */
const DAY = 86_400_000;
const START = Date.parse('2026-10-01T00:00:00.000Z');
const M = 'mer_overview';
const day = (at: number) => new Date(at).toISOString().slice(0, 10);

let seed = 11;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;

interface Part {
  kind: string;
  merchantId: string;
  day: string;
  eventKey: string;
  part: number;
  revision: number;
  decision: string;
  score: number;
  branch: string | null;
}
const written: Part[] = [];
const rows: LakeRow[] = [];
function decided(
  merchantId: string,
  kind: 'order' | 'return',
  id: string,
  at: number,
  parts: number,
  revision = 0,
) {
  rows.push(
    ...decidedLakeRows({ merchantId, kind, id, at, identities: [], parts, revision }, (part) => {
      const values = {
        decision: pick(['APPROVE', 'APPROVE', 'DECLINE', 'REVIEW']),
        abuse_score: pick([0, 9, 10, 45.5, 89.9, 90, 99, 100]),
        sub_decision: pick(['high risk', 'default', 'new card', null]),
        value: 10,
        signals: '{}',
        sample_key: random(),
      };
      written.push({
        kind,
        merchantId,
        day: day(at),
        eventKey: `${kind}#${id}`,
        part,
        revision,
        decision: values.decision,
        score: values.abuse_score,
        branch: values.sub_decision,
      });
      return values;
    }),
  );
}
const orderTimes = Array.from({ length: 400 }, () => START + random() * 20 * DAY);
for (const [i, at] of orderTimes.entries()) decided(M, 'order', `o${i}`, at, 1);
for (let i = 0; i < 150; i++) decided(M, 'return', `t${i}`, START + random() * 20 * DAY, 1 + (i % 3));
for (let i = 0; i < 60; i++) decided('mer_other', 'order', `x${i}`, START + random() * 20 * DAY, 1);
// Revised orders (a status update keeps the event's time): only their latest revision counts.
for (let i = 0; i < 30; i++) decided(M, 'order', `o${i}`, orderTimes[i]!, 1, 2);

function expected(kind: string, fromDay: string, toDay: string) {
  const latest = new Map<string, Part>();
  for (const p of written) {
    if (p.merchantId !== M || p.kind !== kind) continue;
    const key = `${p.eventKey}|${p.part}`;
    if ((latest.get(key)?.revision ?? -1) < p.revision) latest.set(key, p);
  }
  const counts = new Map<string, number>();
  for (const p of latest.values()) {
    if (p.day < fromDay || p.day > toDay) continue;
    const key = `${p.day}|${p.decision}|${Math.min(9, Math.floor(p.score / 10))}|${p.branch ?? ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

let run: LakeQueryRunner;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'overview-rollup-'));
  const lake = await openLocalLake(dir);
  await appendLakeRows(lake, dir, rows);
  run = duckDbRunner(lake);
});

describe('the overview rollup (SQL) counts what the lake holds', () => {
  it.each(['order', 'return'] as const)('%s', async (eventType) => {
    const [fromDay, toDay] = [day(START + 3 * DAY), day(START + 15 * DAY)];
    const days = await readOverviewRollup(run, { merchantId: M, eventType, fromDay, toDay });
    const got = new Map(
      days.flatMap(({ day: d, cells }) =>
        cells.map(([outcome, band, branch, parts]) => [`${d}|${outcome}|${band}|${branch}`, parts] as const),
      ),
    );
    expect(got).toEqual(expected(eventType, fromDay, toDay));
    expect(days.map((d) => d.day)).toEqual([...new Set(days.map((d) => d.day))].sort());
    // The window is not empty and every band edge is exercised: 100 lands in band 9.
    expect(got.size).toBeGreaterThan(100);
    expect([...got.keys()].some((k) => k.includes('|9|'))).toBe(true);
  });
});
