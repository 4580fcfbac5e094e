import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

// A table of its own: the lake is caught up with the table's whole stream, which then holds this
// suite's writes alone.
vi.hoisted(() => {
  process.env.TABLE_NAME = `backtests-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});
const { caughtUpLakeConnection } = await import('../local/lake-runner.ts');
const { duckDbRunner } = await import('../shared/lake/lake-queries.ts');
const { getBacktest, pendingBacktests } = await import('../shared/store/backtests.ts');
const { runPendingBacktests } = await import('../shared/use-cases/backtests.ts');
const { admin, jsonFile } = await import('./support/admin.ts');
const { expectError, newMerchant, withOwnTableApi } = await import('./support/api.ts');
const { placeOrder } = await import('./support/commerce.ts');
const { consoleKey } = await import('./support/console.ts');
const { runBacktestLocally, synthesizedBacktestDefinition } = await import(
  './support/backtest-state-machine.ts'
);
const { default: validateAsl } = await import('asl-validator');

const suite = withOwnTableApi(undefined, { stream: true });
const lakeDir = mkdtempSync(join(tmpdir(), 'backtest-lake-'));
const DAY = 86_400_000;
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

const declineEverything = {
  rules: [{ name: 'decline_everything', decision: 'DECLINE', condition: 'abuseScore >= 0' }],
  defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
};

/** The backtest job's pass (the local poller's code), on the lake caught up with the table. */
async function runBacktests(sampleCap?: number) {
  const lake = await caughtUpLakeConnection(lakeDir);
  try {
    return await runPendingBacktests(duckDbRunner(lake), { sampleCap });
  } finally {
    lake.closeSync();
  }
}

/** Orders on the last `days` days (one each), one 40 days back, and another merchant's order. */
async function merchantWithOrders(days: number) {
  const merchant = await newMerchant();
  const console = await consoleKey(merchant.merchantId);
  const now = Date.now();
  for (let i = 0; i < days; i++)
    await placeOrder(suite.api, merchant.apiKey, { timestamp: now - i * DAY - 60_000 });
  await placeOrder(suite.api, merchant.apiKey, { timestamp: now - 40 * DAY });
  const other = await newMerchant();
  await placeOrder(suite.api, other.apiKey, { timestamp: now - DAY });
  return { ...merchant, console, otherConsole: await consoleKey(other.merchantId) };
}

const post = (key: string, body: unknown) =>
  suite.api.request('POST', '/v1/backtests', { apiKey: key, rawBody: JSON.stringify(body) });
const show = (key: string, id: string) => suite.api.request('GET', `/v1/backtests/${id}`, { apiKey: key });

describe('POST /v1/backtests', () => {
  it('accepts a candidate at once, then the job re-decides every decision of the last 30 days', async () => {
    const m = await merchantWithOrders(3);
    const accepted = await post(m.console, { eventType: 'order', workflow: declineEverything });
    expect(accepted.status, accepted.text).toBe(202);
    const id = accepted.body.backtestId;
    expect(accepted.headers.get('location')).toBe(`/v1/backtests/${id}`);
    expect(accepted.body).toMatchObject({
      status: 'pending',
      eventType: 'order',
      from: dayOf(Date.now() - 29 * DAY),
      to: dayOf(Date.now()),
    });
    expect(accepted.body.report).toBeUndefined();
    expect((await show(m.console, id)).body.status).toBe('pending');

    const finished = await runBacktests();
    expect(finished.map((b) => [b.backtestId, b.status])).toEqual([[id, 'done']]);
    const shown = await show(m.console, id);
    expect(shown.status, shown.text).toBe(200);
    // The three orders of the window, not the one 40 days back nor the other merchant's.
    expect(shown.body).toMatchObject({
      status: 'done',
      coverage: { eventsInWindow: 3, sampleRate: 1, sampled: 3 },
      report: {
        eventType: 'order',
        events: 3,
        decisions: 3,
        changed: 3,
        transitions: { 'APPROVE -> DECLINE': 3 },
        outcomes: { current: { APPROVE: 3 }, candidate: { DECLINE: 3 } },
        decisionsWithoutFields: 0,
      },
    });
    expect(Date.parse(shown.body.finishedAt)).toBeGreaterThanOrEqual(Date.parse(shown.body.startedAt));
    // Another merchant's console does not see it.
    expectError(await show(m.otherConsole, id), 404, 'not_found');
  });

  it('re-decides a uniform sample when the window holds more than the cap, and says so', async () => {
    const m = await merchantWithOrders(8);
    const range = { from: dayOf(Date.now() - 9 * DAY), to: dayOf(Date.now()) };
    const accepted = await post(m.console, { eventType: 'order', workflow: declineEverything, ...range });
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.body).toMatchObject(range);
    await runBacktests(4);
    const { body } = await show(m.console, accepted.body.backtestId);
    expect(body.coverage.eventsInWindow).toBe(8);
    expect(body.coverage.sampleRate).toBe(0.5);
    expect(body.coverage.sampled).toBeLessThanOrEqual(8);
    expect(body.report.decisions).toBe(body.coverage.sampled);
  });

  it('refuses a bad candidate or window with the field named, and records nothing', async () => {
    const m = await merchantWithOrders(1);
    const typo = {
      rules: [{ name: 'big', decision: 'DECLINE', condition: 'abuseScroe >= 10' }],
      defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
    };
    const refused = await post(m.console, { eventType: 'order', workflow: typo });
    expectError(refused, 422, 'invalid_workflow');
    expect(refused.body.error.details[0].message).toContain('abuseScroe');
    const day = dayOf(Date.now());
    const earlier = dayOf(Date.now() - DAY);
    expectError(
      await post(m.console, { eventType: 'order', workflow: declineEverything, from: day, to: earlier }),
      422,
      'unprocessable_entity',
      'to',
    );
    expectError(
      await post(m.console, { eventType: 'order', workflow: declineEverything, from: day }),
      422,
      'unprocessable_entity',
      'to',
    );
    expectError(
      await post(m.console, { eventType: 'order', workflow: declineEverything, from: '2024-01-01', to: day }),
      422,
      'unprocessable_entity',
      'to',
    );
    expectError(
      await post(m.console, { eventType: 'dispute', workflow: declineEverything }),
      422,
      'unprocessable_entity',
      'eventType',
    );
    expect((await pendingBacktests(100)).filter((b) => b.merchantId === m.merchantId)).toEqual([]);
    expectError(await show(m.console, 'btj_0000000000000000'), 404, 'not_found');
  });
});

describe('the backtest state machine (lib/backtest-job.ts)', () => {
  it('is valid ASL', () => {
    const checked = validateAsl(synthesizedBacktestDefinition(), { checkArn: true, checkPaths: true });
    expect(checked.errors).toEqual([]);
    expect(checked.isValid).toBe(true);
  });

  it('runs the step and records the report; a step that keeps failing is recorded as failed and fails', async () => {
    const m = await merchantWithOrders(2);
    const ok = await post(m.console, { eventType: 'order', workflow: declineEverything });
    const failing = await post(m.console, { eventType: 'order', workflow: declineEverything });
    const lake = await caughtUpLakeConnection(lakeDir);
    try {
      const done = await runBacktestLocally(
        { merchantId: m.merchantId, backtestId: ok.body.backtestId },
        { lake },
      );
      expect(done).toMatchObject({ ended: 'succeeded', attempts: 1 });
      expect(await getBacktest(m.merchantId, ok.body.backtestId)).toMatchObject({
        status: 'done',
        coverage: { eventsInWindow: 2 },
      });
      const failed = await runBacktestLocally(
        { merchantId: m.merchantId, backtestId: failing.body.backtestId },
        { lake, fail: true },
      );
      expect(failed).toMatchObject({ ended: 'failed', attempts: 3 });
    } finally {
      lake.closeSync();
    }
    const shown = await show(m.console, failing.body.backtestId);
    expect(shown.body).toMatchObject({ status: 'failed', reason: expect.stringContaining('scan limit') });
    expect(shown.body.report).toBeUndefined();
    // Out of the queue: the local runner does not pick it up again.
    expect((await pendingBacktests(100)).map((b) => b.backtestId)).not.toContain(failing.body.backtestId);
  });
});

describe('admin workflows backtest', () => {
  it('runs the job at once on the local lake and prints its report; backtests show reads it again', async () => {
    const m = await merchantWithOrders(2);
    const file = await jsonFile(declineEverything);
    const range = ['--from', dayOf(Date.now() - 6 * DAY), '--to', dayOf(Date.now())];
    const args = ['--merchant', m.merchantId, '--type', 'order', '--file', file, ...range];
    const result = await admin('workflows', 'backtest', ...args, { LAKE_DIR: lakeDir });
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({
      merchantId: m.merchantId,
      status: 'done',
      coverage: { eventsInWindow: 2, sampleRate: 1 },
      report: {
        decisions: 2,
        changed: 2,
        branchTransitions: { 'APPROVE (default_approve) -> DECLINE (decline_everything)': 2 },
      },
    });
    const shown = await admin(
      'backtests',
      'show',
      '--merchant',
      m.merchantId,
      '--backtest',
      printed.backtestId,
    );
    expect(JSON.parse(shown.stdout)).toEqual(printed);

    const typo = await admin(
      'workflows',
      'backtest',
      ...args.slice(0, 4),
      '--file',
      await jsonFile({ rules: 3 }),
    );
    expect(typo.code).not.toBe(0);
    expect(typo.stderr).toContain('invalid order workflow');
    const backwards = await admin(
      'workflows',
      'backtest',
      ...args.slice(0, 6),
      '--from',
      dayOf(Date.now()),
      '--to',
      dayOf(Date.now() - DAY),
    );
    expect(backwards.code).not.toBe(0);
    expect(backwards.stderr).toContain('to');
  });
});
