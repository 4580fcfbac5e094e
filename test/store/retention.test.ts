/**
 * Retention (docs/privacy.md): every item the service writes carries its expiry in the table's TTL
 * attribute, except the few that live as long as the merchant (MERCHANT_LIFETIME_ITEMS). The
 * merchant's flows run through the local server on a table of their own, then a full scan checks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `retention-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  process.env.EXPORTS_BUCKET = 'exports-test';
});

const { startS3ObjectServer } = await import('../../local/s3-stand-in.ts');
const s3 = await startS3ObjectServer();
process.env.S3_ENDPOINT = s3.endpoint;

const { TTL_ATTRIBUTE } = await import('../../shared/store/table-definition.ts');
const { MERCHANT_LIFETIME_ITEMS } = await import('../../shared/retention.ts');
const { drainNetworkQueue } = await import('../../shared/use-cases/network-worker.ts');
const { runPrivacyWorker } = await import('../../shared/use-cases/privacy-requests.ts');
const { runUploadWorker } = await import('../../shared/use-cases/record-upload.ts');
const { accountBody, loginBody, signupBody } = await import('../support/account-fixtures.ts');
const { newMerchant, withOwnTableApi } = await import('../support/api.ts');
const { disputeEntry, itemDisposition, placeOrder, returnBody } = await import('../support/commerce.ts');
const { consoleKey, reviewEveryReturn, saveWorkflow } = await import('../support/console.ts');
const { allItems, feedOverviewFromTable } = await import('../support/table-snapshot.ts');

const suite = withOwnTableApi(s3);

const DAY = 86_400_000;

/** What an item is, for the message: its entity, or its key's shape without ids. */
const kindOf = (item: Record<string, unknown>) =>
  String(item.entity ?? `${String(item.PK).replace(/[A-Za-z0-9_-]{12,}/g, '…')}|${String(item.SK)}`);

describe('every write carries its expiry', () => {
  it('after every flow a merchant can run, each item has the TTL attribute, but the merchant-lifetime ones', async () => {
    const merchant = await newMerchant({ accountUpdatesEnabled: true });
    const key = await consoleKey(merchant.merchantId);
    const asConsole = (method: string, path: string, body?: unknown) =>
      suite.api.request(method, path, { apiKey: key, ...(body ? { rawBody: JSON.stringify(body) } : {}) });
    const asEvents = (path: string, body: unknown) => suite.api.post(path, body, { apiKey: merchant.apiKey });

    expect((await asConsole('PUT', '/v1/network', { enabled: true })).status).toBe(200);
    expect((await saveWorkflow(suite.api, key, 'return', reviewEveryReturn)).status).toBe(200);
    const settings = readFileSync('examples/settings-order.json', 'utf8');
    expect(
      (await suite.api.request('PUT', '/v1/settings/order', { apiKey: key, rawBody: settings })).status,
    ).toBe(200);
    const order = await placeOrder(suite.api, merchant.apiKey, { timestamp: Date.now() - 10 * DAY });
    const returned = returnBody(order);
    expect((await asEvents('/v1/return', returned)).status).toBe(200);
    const disposition = {
      itemDispositions: [itemDisposition(order, 0, 'EMPTY_BOX', 'REMOVE_SUSPECT_ABUSE')],
    };
    expect((await asEvents(`/v1/return/disposition/${returned.providerReturnId}`, disposition)).status).toBe(
      200,
    );
    const lost = disputeEntry({ disputeStatus: 'LOST', disputeReason: 'FRAUD', timestamp: Date.now() - DAY });
    expect((await asEvents(`/v1/order/dispute/${order.providerOrderId}`, { dispute: [lost] })).status).toBe(
      200,
    );
    expect((await asEvents('/v1/evaluate/signup', signupBody())).status).toBe(200);
    expect((await asEvents('/v1/evaluate/login', loginBody())).status).toBe(200);
    expect((await asEvents('/v1/evaluate/account', accountBody())).status).toBe(200);
    const reviews = await asConsole('GET', '/v1/reviews?status=open');
    const reviewId = reviews.body.items[0].reviewId as string;
    const resolved = await asConsole('POST', `/v1/reviews/${reviewId}/resolve`, {
      outcome: 'abuse',
      note: 'seen before',
    });
    expect(resolved.status).toBe(200);
    const entry = await asConsole('POST', '/v1/lists', {
      list: 'watch',
      identity: { kind: 'email', value: 'someone@example.com' },
      reason: 'asked by support',
    });
    expect(entry.status).toBe(200);
    const csv = `returnId,identifierType,identifier,returnedItemCondition,dispositionOutcome\n${returned.providerReturnId},SKU,${order.lineItems[0]!.identifiers[0]!.identifier},NEW,RESTOCK\n`;
    const upload = await suite.api.request('POST', '/v1/return/dispositions/upload', {
      apiKey: key,
      rawBody: csv,
      headers: { 'Content-Type': 'text/csv' },
    });
    expect(upload.status, upload.text).toBe(202);
    await runUploadWorker();
    const exported = await asConsole('POST', '/v1/privacy/requests', {
      type: 'export',
      subject: { emails: [order.customer.contactInformation[0]!.address] },
    });
    expect(exported.status).toBe(202);
    await runPrivacyWorker();
    await drainNetworkQueue();
    // The overview's counters, as the stream feed keeps them (this table has no stream).
    await feedOverviewFromTable();
    expect((await allItems()).some((item) => item.entity === 'overviewCounters')).toBe(true);

    const missing = (await allItems())
      .filter((item) => item[TTL_ATTRIBUTE] === undefined)
      .map(kindOf)
      .filter((kind) => !MERCHANT_LIFETIME_ITEMS.some((pattern) => pattern.test(kind)));
    expect([...new Set(missing)].sort()).toEqual([]);
  });
});
