/**
 * Offboarding a merchant (docs/operations.md): `admin merchant delete --merchant M --confirm M` on a
 * table of its own, so a full scan sees every item. A and B share a customer; after A is deleted
 * nothing of A is left in the table or its S3 prefixes, its keys are refused, the network holds what
 * B alone contributed, B is untouched, its lake partitions are gone (a run cut off is resumed by the
 * next), and a second run deletes nothing.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `offboard-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  process.env.EXPORTS_BUCKET = 'exports-test';
  process.env.IMPORT_BUCKET = 'imports-test';
});

const { startS3ObjectServer } = await import('../local/s3-stand-in.ts');
const s3 = await startS3ObjectServer();
process.env.S3_ENDPOINT = s3.endpoint;

const { keyedDigests } = await import('../shared/digests/identity-digests.ts');
const { readNetworkSecret } = await import('../shared/network/network-secret.ts');
const { drainNetworkQueue } = await import('../shared/use-cases/network-worker.ts');
const { runPrivacyWorker } = await import('../shared/use-cases/privacy-requests.ts');
const { offboardingStatus } = await import('../shared/use-cases/offboard-merchant.ts');
const { admin } = await import('./support/admin.ts');
const { withOwnTableApi, waitForKeyCacheExpiry } = await import('./support/api.ts');
const { disputeEntry, placeOrder } = await import('./support/commerce.ts');
const { normalizeCard } = await import('../shared/identity/identities.ts');
const { networkMember } = await import('./support/console.ts');
const { uid } = await import('./support/fixtures.ts');
const { reportDispute } = await import('./support/lists.ts');
const { allItems, changedKeys, feedOverviewFromTable, merchantItems } = await import(
  './support/table-snapshot.ts'
);
const { lakeRowsOfItem } = await import('../shared/lake/lake-rows.ts');
const { appendLakeRows, openLocalLake } = await import('../shared/lake/local-lake.ts');

/** A lake of the table's items as they stand, projected as the feed projects them. */
async function lakeOfTable(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'offboard-lake-'));
  const rows = (await allItems()).flatMap((item) => lakeRowsOfItem(item, Date.now()));
  const lake = await openLocalLake(dir);
  await appendLakeRows(lake, dir, rows);
  lake.closeSync();
  return dir;
}

/** The merchant's Parquet files in the lake at `dir`, by path. */
const lakeFilesOf = (dir: string, merchantId: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.parquet') && path.includes(`/merchant_id=${merchantId}/`))
    .sort();

const suite = withOwnTableApi(s3);

const DAY = 86_400_000;

describe('merchant delete', () => {
  it('deletes everything of the merchant, withdraws its network contributions, leaves B untouched; again: nothing', async () => {
    const [a, b] = [await networkMember(suite.api), await networkMember(suite.api)];
    const email = `${uid('shared')}@example.com`;
    const card = { BIN: '466666', last4: String(1000 + Math.floor(Math.random() * 8999)), expiry: '07/30' };
    for (const m of [a, b]) {
      const order = await placeOrder(suite.api, m.apiKey, { email, card, timestamp: Date.now() - 10 * DAY });
      const lost = disputeEntry({
        disputeStatus: 'LOST',
        disputeReason: 'FRAUD',
        timestamp: Date.now() - DAY,
      });
      await reportDispute(suite.api, m.apiKey, order.providerOrderId, lost);
    }
    await drainNetworkQueue();
    const exported = await suite.api.request('POST', '/v1/privacy/requests', {
      apiKey: a.console,
      rawBody: JSON.stringify({ type: 'export', subject: { emails: [email] } }),
    });
    expect(exported.status).toBe(202);
    await runPrivacyWorker();
    s3.put('imports-test', `${a.merchantId}/history.ndjson`, '{}\n');
    s3.put('imports-test', `${b.merchantId}/history.ndjson`, '{}\n');
    // The overview's counters, as the stream feed keeps them (this table has no stream).
    await feedOverviewFromTable();
    const bBefore = await merchantItems(b.merchantId);
    const lakeDir = await lakeOfTable();
    const bLake = lakeFilesOf(lakeDir, b.merchantId);
    expect(bLake.length).toBeGreaterThan(0);
    // A run cut off after the dispute partitions: the next run goes on with the rest.
    rmSync(join(lakeDir, 'feedback', 'kind=dispute', `merchant_id=${a.merchantId}`), { recursive: true });
    const aLake = lakeFilesOf(lakeDir, a.merchantId);
    expect(aLake.some((path) => path.startsWith('decided_events/kind=order/'))).toBe(true);

    const refused = await admin('merchant', 'delete', '--merchant', a.merchantId, '--confirm', b.merchantId);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--confirm');

    const deleted = await admin('merchant', 'delete', '--merchant', a.merchantId, '--confirm', a.merchantId, {
      LAKE_DIR: lakeDir,
    });
    expect(deleted.code, deleted.stderr).toBe(0);
    const receipt = JSON.parse(deleted.stdout);
    expect(receipt).toMatchObject({
      merchantId: a.merchantId,
      found: true,
      objects: { imports: 1, exports: 1, lake: aLake.length },
    });
    expect(lakeFilesOf(lakeDir, a.merchantId)).toEqual([]);
    expect(lakeFilesOf(lakeDir, b.merchantId)).toEqual(bLake);
    expect(receipt.keysRevoked).toBe(2);
    expect(receipt.digestKeyDeleted).toBe(true);
    // Its digest key is gone (locally a file per merchant): nothing left anywhere links to a value.
    const keyFile = (merchantId: string) =>
      join(
        process.env.DIGEST_KEY_DIR ?? join(process.cwd(), '.data', 'digest-keys'),
        encodeURIComponent(merchantId),
      );
    expect(existsSync(keyFile(a.merchantId))).toBe(false);
    expect(existsSync(keyFile(b.merchantId))).toBe(true);
    expect(receipt.items.byKind).toMatchObject({
      merchant: 1,
      apiKey: 2,
      order: 1,
      dispute: 1,
      privacyRequest: 1,
      overviewCounters: 1,
    });

    const left = (await allItems()).filter(
      (item) => JSON.stringify(item).includes(a.merchantId) && item.entity !== 'offboardedMerchant',
    );
    expect(left.map((item) => `${item.PK}|${item.SK}`)).toEqual([]);
    expect(changedKeys(bBefore, await merchantItems(b.merchantId))).toEqual([]);
    expect(s3.get('imports-test', `${a.merchantId}/history.ndjson`)).toBeUndefined();
    expect(s3.get('imports-test', `${b.merchantId}/history.ndjson`)).toBe('{}\n');

    // The network key is the same at every merchant: any digest key gives it.
    const cardKey = keyedDigests(Buffer.alloc(32), await readNetworkSecret())('card', normalizeCard(card)!)
      .networkKey!;
    const partition = (await allItems())
      .filter((item) => item.PK === `NET#${cardKey}`)
      .map((item) => item.SK);
    expect(partition.sort()).toEqual(['REPUTATION', `M#${b.merchantId}`].sort());

    await waitForKeyCacheExpiry();
    const order = await suite.api.post('/v1/order', {}, { apiKey: a.apiKey });
    expect(order.status).toBe(401);

    const again = await admin('merchant', 'delete', '--merchant', a.merchantId, '--confirm', a.merchantId, {
      LAKE_DIR: lakeDir,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      found: false,
      keysRevoked: 0,
      items: { total: 0 },
      objects: { lake: 0 },
    });
    expect(lakeFilesOf(lakeDir, b.merchantId)).toEqual(bLake);
  });

  it('runs as a job: --no-wait returns at once, the worker goes on in many small slices, resumes a failed one, --status shows the receipt', async () => {
    const [c, b] = [await networkMember(suite.api), await networkMember(suite.api)];
    for (const m of [c, b]) {
      for (let i = 0; i < 4; i++) {
        await placeOrder(suite.api, m.apiKey, {
          email: `${uid('job')}@example.com`,
          timestamp: Date.now() - DAY,
        });
      }
    }
    s3.put('imports-test', `${c.merchantId}/history.ndjson`, '{}\n');
    const cItems = await merchantItems(c.merchantId);
    const bBefore = await merchantItems(b.merchantId);
    const lakeDir = await lakeOfTable();
    const bLake = lakeFilesOf(lakeDir, b.merchantId);
    const cLake = lakeFilesOf(lakeDir, c.merchantId);
    expect(cLake.length).toBeGreaterThan(0);

    const queued = await admin(
      'merchant',
      'delete',
      '--merchant',
      c.merchantId,
      '--confirm',
      c.merchantId,
      '--segments',
      '2',
      '--no-wait',
    );
    expect(queued.code, queued.stderr).toBe(0);
    expect(JSON.parse(queued.stdout)).toMatchObject({
      status: 'running',
      step: 'withdraw',
      slices: 0,
      found: true,
    });
    // Refused at once (suspended: 403), before any slice has run.
    await waitForKeyCacheExpiry();
    expect((await suite.api.post('/v1/order', {}, { apiKey: c.apiKey })).status).toBe(403);

    // A tiny slice budget: one step, or one page of 2 items per Scan segment, per slice.
    const pass = () => runPrivacyWorker({ sliceMs: 0, pageItems: 2, offboardingLake: { dir: lakeDir } });
    const status = async () => (await offboardingStatus(c.merchantId))!;
    let state = await status();
    while (state.step !== 'objects') {
      await pass();
      state = await status();
    }
    expect(state.slices).toBeGreaterThan(3);
    // The objects step's slice is cut off (S3 unreachable): counted as an attempt, nothing recorded.
    const endpoint = process.env.S3_ENDPOINT;
    process.env.S3_ENDPOINT = 'http://127.0.0.1:1';
    try {
      await pass();
    } finally {
      process.env.S3_ENDPOINT = endpoint;
    }
    expect(await status()).toMatchObject({ status: 'running', step: 'objects', slices: state.slices });
    for (let i = 0; i < 5 && (await status()).status === 'running'; i++) await pass();

    const shown = await admin('merchant', 'delete', '--status', '--merchant', c.merchantId);
    expect(shown.code, shown.stderr).toBe(0);
    const receipt = JSON.parse(shown.stdout);
    expect(receipt).toMatchObject({
      status: 'done',
      found: true,
      keysRevoked: 2,
      digestKeyDeleted: true,
      objects: { imports: 1, lake: cLake.length },
    });
    // Its keys (outside its partitions) besides every item under them.
    expect(receipt.items.total).toBeGreaterThanOrEqual(cItems.size + 2);
    const left = (await allItems()).filter(
      (item) => JSON.stringify(item).includes(c.merchantId) && item.entity !== 'offboardedMerchant',
    );
    expect(left).toEqual([]);
    expect(changedKeys(bBefore, await merchantItems(b.merchantId))).toEqual([]);
    expect(lakeFilesOf(lakeDir, c.merchantId)).toEqual([]);
    expect(lakeFilesOf(lakeDir, b.merchantId)).toEqual(bLake);

    // A second run changes nothing, and its receipt says so.
    const before = await allItems();
    const again = await admin('merchant', 'delete', '--merchant', c.merchantId, '--confirm', c.merchantId, {
      LAKE_DIR: lakeDir,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'done', found: false, items: { total: 0 } });
    const after = (await allItems()).filter((item) => item.entity !== 'offboardedMerchant');
    expect(after).toEqual(before.filter((item) => item.entity !== 'offboardedMerchant'));
  });
});
