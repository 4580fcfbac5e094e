import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { backtestWindow, sampleRateFor } from '../../shared/lake/lake-backtest.ts';
import { duckDbRunner, type LakeQueryRunner } from '../../shared/lake/lake-queries.ts';
import type { LakeRow } from '../../shared/lake/lake-tables.ts';
import { appendLakeRows, defineLakeViews, openLocalLake } from '../../shared/lake/local-lake.ts';
import { sampleKeyOf } from '../../shared/learning/sampling.ts';
import { backtest, type ReplayedEvent } from '../../shared/scoring/backtest.ts';
import type { Workflow } from '../../shared/scoring/workflow.ts';
import { loadWorkflow } from '../../shared/scoring/workflow-engine.ts';
import { decidedLakeRows } from '../support/lake-rows.ts';

/**
 * The lake backtest on DuckDB against `backtest` run on the same events built here: each part at its
 * latest revision, re-decided from its stored score and fields; and the sample it states when the
 * window holds more parts than the cap.
 */
const M = 'mer_bt';
const DAY = 86_400_000;
const START = Date.parse('2026-11-01T10:00:00.000Z');
const EVENTS = 300;

const candidate: Workflow = {
  eventType: 'order',
  version: 'candidate',
  rules: [
    { name: 'score_60', decision: 'DECLINE', condition: 'abuseScore >= 60' },
    { name: 'big', decision: 'DECLINE', condition: 'orderValue >= 500.0' },
  ],
  defaultBranch: { name: 'default', decision: 'APPROVE' },
};

/** Event i: score and value vary with i; its first revision said APPROVE, its latest says by score. */
const scoreOf = (i: number) => (i * 37) % 100;
const orderValueOf = (i: number) => (i * 53) % 900;
const latestDecision = (i: number) => (scoreOf(i) >= 80 ? 'DECLINE' : 'APPROVE');
const atOf = (i: number) => START + (i % 10) * DAY + i;

function lakeRows(): LakeRow[] {
  return Array.from({ length: EVENTS }, (_, i) =>
    [0, 1].flatMap((revision) =>
      decidedLakeRows(
        { merchantId: M, kind: 'order', id: `o${i}`, at: atOf(i), identities: [], revision },
        () => ({
          decision: revision === 1 ? latestDecision(i) : 'APPROVE',
          sub_decision: revision === 1 && latestDecision(i) === 'DECLINE' ? 'high_abuse_score' : 'default',
          abuse_score: revision === 1 ? scoreOf(i) : 0,
          value: orderValueOf(i),
          signals: '{}',
          fields: JSON.stringify({ orderValue: orderValueOf(i) }),
          sample_key: sampleKeyOf(`${M}|order`, `ORDER#o${i}`, 0),
        }),
      ),
    ),
  ).flat();
}

/** The same events as the table would replay them, in the query's order. */
function expectedEvents(keep: (i: number) => boolean): ReplayedEvent[] {
  return Array.from({ length: EVENTS }, (_, i) => i)
    .filter(keep)
    .sort((a, b) => atOf(a) - atOf(b))
    .map((i) => ({
      eventId: `o${i}`,
      createdAt: new Date(atOf(i)).toISOString(),
      decisions: [
        {
          decision: latestDecision(i),
          subDecision: latestDecision(i) === 'DECLINE' ? 'high_abuse_score' : 'default',
          abuseScore: scoreOf(i),
          signals: {},
          fields: { orderValue: orderValueOf(i) },
        },
      ],
    }));
}

let run: LakeQueryRunner;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lake-backtest-'));
  const connection = await openLocalLake(dir);
  await appendLakeRows(connection, dir, lakeRows());
  run = duckDbRunner(connection);
});

describe('backtestWindow', () => {
  const window = { merchantId: M, eventType: 'order' as const, from: '2026-11-01', to: '2026-11-10' };

  it('re-decides every part of the window at its latest revision when it fits the cap', async () => {
    const report = await backtestWindow(run, window, candidate);
    const expected = backtest(
      await loadWorkflow(candidate),
      expectedEvents(() => true),
    );
    expect(report.coverage).toEqual({ eventsInWindow: EVENTS, sampleRate: 1, sampled: EVENTS });
    expect(report.changed).toBeGreaterThan(0);
    expect({ ...report, from: undefined, to: undefined, coverage: undefined }).toEqual({
      ...expected,
      from: undefined,
      to: undefined,
      coverage: undefined,
    });
  });

  it('covers only the days asked', async () => {
    const report = await backtestWindow(run, { ...window, to: '2026-11-03' }, candidate);
    const inDays = (i: number) => i % 10 < 3;
    expect(report.coverage.eventsInWindow).toBe(
      Array.from({ length: EVENTS }, (_, i) => i).filter(inDays).length,
    );
    expect(report.decisions).toBe(report.coverage.eventsInWindow);
  });

  it('samples uniformly by the parts’ sample keys past the cap, and states the rate', async () => {
    const cap = 100;
    const report = await backtestWindow(run, window, candidate, cap);
    const rate = sampleRateFor(EVENTS, cap);
    expect(report.coverage.sampleRate).toBeCloseTo(1 / 3);
    const kept = (i: number) => sampleKeyOf(`${M}|order`, `ORDER#o${i}`, 0) < rate;
    const expected = backtest(await loadWorkflow(candidate), expectedEvents(kept));
    expect(report.coverage.sampled).toBe(expected.decisions);
    expect(report.coverage.sampled).toBeGreaterThan(60);
    expect(report.coverage.sampled).toBeLessThan(140);
    expect(report.transitions).toEqual(expected.transitions);
    expect(report.outcomes).toEqual(expected.outcomes);
  });

  it('reads the columns added since older files were written as null, as Athena does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lake-older-'));
    const lake = await openLocalLake(dir);
    await appendLakeRows(lake, dir, lakeRows().slice(0, 4));
    // Those files rewritten as a version before `fields` and `model_thresholds` wrote them, and named
    // as it named them (no column-set tag).
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.parquet'))
      .map((name) => join(dir, name));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      await lake.run(
        `COPY (SELECT * EXCLUDE (fields, model_thresholds) FROM read_parquet('${file}')) TO '${file}.old' (FORMAT parquet)`,
      );
      renameSync(`${file}.old`, join(dirname(file), `part-${randomUUID()}.parquet`));
      rmSync(file);
    }
    await defineLakeViews(lake, dir);
    const counted = await lake.runAndReadAll(
      'SELECT count(*) AS rows, count(fields) AS fields, count(model_thresholds) AS thresholds FROM decided_events',
    );
    expect(counted.getRowObjectsJS()).toEqual([{ rows: 4n, fields: 0n, thresholds: 0n }]);
    const report = await backtestWindow(
      duckDbRunner(lake),
      { merchantId: M, eventType: 'order', from: '2026-11-01', to: '2026-11-30' },
      await loadWorkflow(candidate),
    );
    expect(report.decisionsWithoutFields).toBe(report.decisions);
    // A lake both versions wrote: the newer files are read with their columns beside the older ones.
    await appendLakeRows(lake, dir, lakeRows().slice(4, 7));
    const mixed = await lake.runAndReadAll(
      'SELECT count(*) AS rows, count(fields) AS fields FROM decided_events',
    );
    expect(mixed.getRowObjectsJS()).toEqual([{ rows: 7n, fields: 3n }]);
  });
});
