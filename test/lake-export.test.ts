import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// A table of its own: the lake is caught up with the table's whole stream, which then holds this
// suite's writes alone; exports go to an S3 stand-in, read back through their presigned links.
vi.hoisted(() => {
  process.env.TABLE_NAME = `lake-export-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  process.env.EXPORTS_BUCKET = 'exports-test';
});
const { startS3ObjectServer } = await import('../local/s3-stand-in.ts');
const s3 = await startS3ObjectServer();
process.env.S3_ENDPOINT = s3.endpoint;

const { DuckDBInstance } = await import('@duckdb/node-api');
const { caughtUpLakeConnection } = await import('../local/lake-runner.ts');
const { duckDbExportWriter } = await import('../shared/lake/lake-export.ts');
const { pendingLakeExports } = await import('../shared/store/lake-exports.ts');
const { runPendingLakeExports } = await import('../shared/use-cases/lake-exports.ts');
const { admin } = await import('./support/admin.ts');
const { expectError, newMerchant, withOwnTableApi } = await import('./support/api.ts');
const { disputeEntry, placeOrder } = await import('./support/commerce.ts');
const { consoleKey } = await import('./support/console.ts');
const { getLakeExport } = await import('../shared/store/lake-exports.ts');
const { runExportLocally, synthesizedExportDefinition } = await import(
  './support/lake-export-state-machine.ts'
);
const { default: validateAsl } = await import('asl-validator');

const suite = withOwnTableApi(s3, { stream: true });
const lakeDir = mkdtempSync(join(tmpdir(), 'export-lake-'));
let reader: DuckDBConnection;
beforeAll(async () => {
  reader = await (await DuckDBInstance.create(':memory:')).connect();
});
afterAll(() => reader.closeSync());

const DAY = 86_400_000;
/** Four UTC days at noon, some weeks back: the export asks for the middle two. */
const FIRST = Date.parse('2026-10-05T12:00:00.000Z');
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/** The export job's pass (the local poller's code), on the lake caught up with the table. */
async function runExports() {
  const lake = await caughtUpLakeConnection(lakeDir);
  try {
    return await runPendingLakeExports(duckDbExportWriter(lake));
  } finally {
    lake.closeSync();
  }
}

/** A file behind a presigned link, read with DuckDB as CSV or Parquet. */
async function rowsAt(url: string, format: 'csv' | 'parquet') {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const file = join(lakeDir, `read-${Math.random().toString(36).slice(2)}.${format}`);
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  const read = format === 'csv' ? `read_csv('${file}', header = true)` : `read_parquet('${file}')`;
  return (await reader.runAndReadAll(`SELECT * FROM ${read}`)).getRowObjectsJson();
}

/** A merchant's orders on four days, a chargeback on the second day's order, and another merchant. */
async function merchantHistory() {
  const merchant = await newMerchant();
  const console = await consoleKey(merchant.merchantId);
  const orders = [];
  for (let i = 0; i < 4; i++) {
    const timestamp = FIRST + i * DAY;
    const body = await placeOrder(suite.api, merchant.apiKey, { timestamp });
    orders.push({ id: body.providerOrderId, day: dayOf(timestamp) });
  }
  // Two decided orders the same day (the third): both are in the range.
  const second = await placeOrder(suite.api, merchant.apiKey, { timestamp: FIRST + 2 * DAY + 60_000 });
  orders.push({ id: second.providerOrderId, day: dayOf(FIRST + 2 * DAY) });
  const dispute = disputeEntry({ disputeStatus: 'LOST', timestamp: FIRST + 2 * DAY + 3_600_000 });
  const disputed = await suite.api.post(
    `/v1/order/dispute/${orders[1]!.id}`,
    { dispute: [dispute] },
    {
      apiKey: merchant.apiKey,
    },
  );
  expect(disputed.status).toBe(200);
  const other = await newMerchant();
  const foreign = await placeOrder(suite.api, other.apiKey, { timestamp: FIRST + DAY });
  return { ...merchant, console, orders, dispute, foreign: foreign.providerOrderId };
}

const post = (key: string, body: unknown) =>
  suite.api.request('POST', '/v1/exports', { apiKey: key, rawBody: JSON.stringify(body) });

describe('POST /v1/exports', () => {
  it.each(['csv', 'parquet'] as const)(
    'exports a merchant’s orders and disputes of a range as %s: what the API recorded, nothing else',
    async (format) => {
      const m = await merchantHistory();
      const range = { from: dayOf(FIRST + DAY), to: dayOf(FIRST + 2 * DAY) };
      const accepted = await post(m.console, { ...range, format, kinds: ['order', 'dispute'] });
      expect(accepted.status, accepted.text).toBe(202);
      expect(accepted.headers.get('location')).toBe(`/v1/exports/${accepted.body.exportId}`);
      expect(accepted.body).toMatchObject({
        status: 'pending',
        ...range,
        format,
        kinds: ['order', 'dispute'],
      });

      const finished = await runExports();
      expect(finished.map((e) => [e.exportId, e.status])).toEqual([[accepted.body.exportId, 'done']]);
      const shown = await suite.api.request('GET', `/v1/exports/${accepted.body.exportId}`, {
        apiKey: m.console,
      });
      expect(shown.status, shown.text).toBe(200);
      expect(shown.body.status).toBe('done');
      expect(Date.parse(shown.body.expiresAt) - Date.now()).toBeGreaterThan(6 * DAY);
      const files = shown.body.files as { kind: string; url: string }[];
      expect(files.map((f) => f.kind)).toEqual(['order', 'dispute']);
      // Each read signs a short link (a Lambda role's credentials end sooner than the export).
      for (const file of files) expect(new URL(file.url).searchParams.get('X-Amz-Expires')).toBe('900');

      const orders = await rowsAt(files[0]!.url, format);
      const inRange = m.orders.filter((o) => o.day >= range.from && o.day <= range.to);
      expect(orders.map((o) => o.event_id).sort()).toEqual(inRange.map((o) => o.id).sort());
      expect(orders.map((o) => o.event_id)).not.toContain(m.foreign);
      for (const row of orders) {
        expect(row).toMatchObject({
          kind: 'order',
          decision: expect.stringMatching(/^(APPROVE|DECLINE|REVIEW)$/),
        });
        // Identities as digests: no e-mail address, no card number.
        expect(JSON.stringify(row)).not.toMatch(/@|411111/);
      }
      const disputes = await rowsAt(files[1]!.url, format);
      expect(disputes).toEqual([
        expect.objectContaining({
          kind: 'dispute',
          feedback_id: m.dispute.disputeId,
          order_id: m.orders[1]!.id,
          dispute_status: 'LOST',
        }),
      ]);

      const audit = await suite.api.request('GET', '/v1/audit?limit=100', { apiKey: m.console });
      const actions = audit.body.items
        .filter((e: { subject: string }) => e.subject === accepted.body.exportId)
        .map((e: { action: string }) => e.action);
      expect(actions.sort()).toEqual(['export.done', 'export.requested']);
    },
  );

  it('refuses bad input with 422 naming the field, and records nothing', async () => {
    const m = await merchantHistory();
    const good = { from: '2026-10-01', to: '2026-10-31', format: 'csv' };
    const bad: [unknown, string][] = [
      [{ ...good, to: '2026-09-30' }, 'to'],
      [{ ...good, to: '2027-10-31' }, 'to'],
      [{ ...good, from: '2026-13-01' }, 'from'],
      [{ ...good, format: 'xlsx' }, 'format'],
      [{ ...good, kinds: ['order', 'password'] }, 'kinds[1]'],
      [{ ...good, kinds: [] }, 'kinds'],
      [{ ...good, kinds: ['order', 'order'] }, 'kinds'],
      [{ ...good, merchantId: 'mer_other' }, 'merchantId'],
    ];
    for (const [body, field] of bad) {
      const refused = await post(m.console, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expectError(refused, 422, refused.body.error.code, field);
    }
    // A missing field is a malformed request (400), as everywhere in the API.
    expectError(await post(m.console, { from: good.from, format: 'csv' }), 400, 'invalid_request', 'to');
    expect(await pendingLakeExports(10)).toEqual([]);
    const audit = await suite.api.request('GET', '/v1/audit?limit=100', { apiKey: m.console });
    expect(audit.body.items.filter((e: { action: string }) => e.action.startsWith('export.'))).toEqual([]);
    const missing = await suite.api.request('GET', '/v1/exports/exp_nothere', { apiKey: m.console });
    expectError(missing, 404, 'not_found');
    // An events key cannot ask.
    expect((await post(m.apiKey, good)).status).toBe(403);
  });

  it('runs at once from the admin CLI, audited with the operator', async () => {
    const m = await merchantHistory();
    const done = await admin(
      'export',
      '--merchant',
      m.merchantId,
      '--from',
      dayOf(FIRST),
      '--to',
      dayOf(FIRST + 3 * DAY),
      '--format',
      'csv',
      '--kinds',
      'order',
    );
    expect(done.code, done.stderr).toBe(0);
    const shown = JSON.parse(done.stdout);
    expect(shown).toMatchObject({ status: 'done', format: 'csv', kinds: ['order'] });
    const orders = await rowsAt(shown.files[0].url, 'csv');
    expect(orders.map((o) => o.event_id).sort()).toEqual(m.orders.map((o) => o.id).sort());
    const audit = await suite.api.request('GET', '/v1/audit?limit=100', { apiKey: m.console });
    const entries = audit.body.items.filter((e: { subject: string }) => e.subject === shown.exportId);
    expect(entries.map((e: { action: string }) => e.action).sort()).toEqual([
      'export.done',
      'export.requested',
    ]);
    for (const entry of entries) expect(entry.keyName).toMatch(/^admin CLI \(.+\)$/);

    const refused = await admin(
      'export',
      '--merchant',
      m.merchantId,
      '--from',
      '2026-10-02',
      '--to',
      '2026-10-01',
      '--format',
      'csv',
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^to must not be before `from`/m);
  });
});

describe('the export state machine (lib/lake-export-job.ts), run locally', () => {
  it('is valid Amazon States Language', () => {
    const checked = validateAsl(synthesizedExportDefinition(), { checkArn: true, checkPaths: true });
    expect(checked.errors).toEqual([]);
    expect(checked.isValid).toBe(true);
  });

  it('writes every kind and records the export done, as the local job does', async () => {
    const m = await merchantHistory();
    const range = { from: dayOf(FIRST), to: dayOf(FIRST + 3 * DAY) };
    const accepted = await post(m.console, {
      ...range,
      format: 'parquet',
      kinds: ['order', 'dispute', 'review'],
    });
    expect(accepted.status, accepted.text).toBe(202);
    const lake = await caughtUpLakeConnection(lakeDir);
    const record = (await getLakeExport(m.merchantId, accepted.body.exportId))!;
    const run = await runExportLocally(record, { lake });
    lake.closeSync();
    expect(run.ended).toBe('succeeded');
    expect(run.attempts).toEqual({ order: 1, dispute: 1, review: 1 });
    const shown = await suite.api.request('GET', `/v1/exports/${record.exportId}`, { apiKey: m.console });
    expect(shown.body.status).toBe('done');
    expect(shown.body.files.map((f: { kind: string }) => f.kind)).toEqual(['order', 'dispute', 'review']);
    const orders = await rowsAt(shown.body.files[0].url, 'parquet');
    expect(orders.map((o) => o.event_id).sort()).toEqual(m.orders.map((o) => o.id).sort());
    expect(await rowsAt(shown.body.files[2].url, 'parquet')).toEqual([]);
  });

  it('retries a failing kind, then records the export failed, audited, and the execution fails', async () => {
    const m = await merchantHistory();
    const accepted = await post(m.console, {
      from: dayOf(FIRST),
      to: dayOf(FIRST),
      format: 'csv',
      kinds: ['order', 'dispute'],
    });
    const lake = await caughtUpLakeConnection(lakeDir);
    const record = (await getLakeExport(m.merchantId, accepted.body.exportId))!;
    const run = await runExportLocally(record, { lake, fail: (kind) => kind === 'dispute' });
    lake.closeSync();
    expect(run.ended).toBe('failed');
    // The first try and three retries.
    expect(run.attempts.dispute).toBe(4);
    const shown = await suite.api.request('GET', `/v1/exports/${record.exportId}`, { apiKey: m.console });
    expect(shown.body).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('Athena query FAILED'),
    });
    expect(shown.body.files).toBeUndefined();
    const audit = await suite.api.request('GET', '/v1/audit?limit=100', { apiKey: m.console });
    const outcome = audit.body.items.filter(
      (e: { subject: string; action: string }) =>
        e.subject === record.exportId && e.action === 'export.failed',
    );
    expect(outcome).toHaveLength(1);
  });
});
