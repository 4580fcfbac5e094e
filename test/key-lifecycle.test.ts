import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { KEY_EXPIRY_HEADER } from '../shared/contract/key-expiry.ts';
import { admin } from './support/admin.ts';
import { expectError, startTestApi, type TestApi, waitForKeyCacheExpiry } from './support/api.ts';
import { consoleKey } from './support/console.ts';
import { orderBody } from './support/fixtures.ts';

/**
 * Keys that expire (`admin key create --expires`), the warning header of their last 14 days, and the
 * audit log of key creation, revocation and merchant suspension (who and when), through the admin
 * CLI, the local server and the management API.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
afterEach(() => {
  vi.useRealTimers();
});

const DAY_MS = 86_400_000;
const OPERATOR = { ADMIN_OPERATOR: 'ana@ops.example' };

async function newMerchantByCli(): Promise<string> {
  const created = await admin('merchant', 'create', '--name', 'Expiring', OPERATOR);
  expect(created.code).toBe(0);
  return JSON.parse(created.stdout).merchantId as string;
}

async function keyExpiringAt(merchantId: string, expires: string) {
  const result = await admin('key', 'create', '--merchant', merchantId, '--expires', expires, OPERATOR);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { keyId: string; apiKey: string; expiresAt: string };
}

describe('keys that expire', () => {
  it('work until their expiry, warn in their last 14 days, then answer 401 invalid_api_key', async () => {
    const merchantId = await newMerchantByCli();
    const soon = new Date(Date.now() + 10 * DAY_MS).toISOString();
    const key = await keyExpiringAt(merchantId, soon);
    expect(key.expiresAt).toBe(soon);
    const warned = await api.post('/v1/order', orderBody(), { apiKey: key.apiKey });
    expect(warned.status).toBe(200);
    expect(warned.headers.get(KEY_EXPIRY_HEADER)).toBe(soon);

    // Errors after authentication carry it too.
    const refused = await api.post('/v1/order', { intent: 'Order' }, { apiKey: key.apiKey });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.headers.get(KEY_EXPIRY_HEADER)).toBe(soon);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(soon) + 1 });
    const expired = await api.post('/v1/order', orderBody({ timestamp: Date.now() - 60_000 }), {
      apiKey: key.apiKey,
    });
    expectError(expired, 401, 'invalid_api_key');
    expect(expired.body.error.message).toContain(soon);
  });

  it('a key with more than 14 days left, or none, carries no warning; a day means its start, UTC', async () => {
    const merchantId = await newMerchantByCli();
    const later = new Date(Date.now() + 30 * DAY_MS).toISOString().slice(0, 10);
    const key = await keyExpiringAt(merchantId, later);
    expect(key.expiresAt).toBe(`${later}T00:00:00.000Z`);
    const response = await api.post('/v1/order', orderBody(), { apiKey: key.apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get(KEY_EXPIRY_HEADER)).toBeNull();
  });

  it('refuses an expiry in the past, one that is no date, and a date-time without its zone', async () => {
    const merchantId = await newMerchantByCli();
    for (const expires of ['2001-01-01', 'next tuesday', '2099-01-01T00:00:00']) {
      const result = await admin('key', 'create', '--merchant', merchantId, '--expires', expires);
      expect(result.code, expires).not.toBe(0);
      expect(result.stderr, expires).toContain('--expires');
    }
  });
});

describe('the audit log of keys and suspensions', () => {
  it('records key creation, revocation, suspension and its lifting, with who and when', async () => {
    const started = Date.now();
    const merchantId = await newMerchantByCli();
    const key = await keyExpiringAt(merchantId, new Date(Date.now() + 100 * DAY_MS).toISOString());
    expect((await admin('key', 'revoke', '--key-id', key.keyId, OPERATOR)).code).toBe(0);
    expect((await admin('merchant', 'update', '--merchant', merchantId, '--suspend', OPERATOR)).code).toBe(0);
    expect((await admin('merchant', 'update', '--merchant', merchantId, '--unsuspend', OPERATOR)).code).toBe(
      0,
    );

    const reader = await consoleKey(merchantId);
    const audit = await api.request('GET', '/v1/audit?limit=20', { apiKey: reader });
    expect(audit.status).toBe(200);
    const entries = (
      audit.body.items as { at: string; action: string; keyName: string; subject: string; detail: string }[]
    ).filter((entry) => entry.keyName !== 'test suite' && entry.keyName !== 'local tooling');
    expect(entries.map((entry) => entry.action)).toEqual([
      'merchant.unsuspended',
      'merchant.suspended',
      'apiKey.revoked',
      'apiKey.created',
      'apiKey.created',
    ]);
    for (const entry of entries) {
      expect(entry.keyName).toBe('admin CLI (ana@ops.example)');
      expect(Date.parse(entry.at)).toBeGreaterThanOrEqual(started - 1_000);
      expect(Date.parse(entry.at)).toBeLessThanOrEqual(Date.now());
    }
    expect(entries[2]).toMatchObject({ subject: key.keyId, detail: `events key …${key.apiKey.slice(-4)}` });
    expect(entries[3]!.detail).toContain(`expires ${key.expiresAt}`);

    // Lifted, the suspension leaves the merchant's keys working again.
    await waitForKeyCacheExpiry();
    const other = await keyExpiringAt(merchantId, new Date(Date.now() + 100 * DAY_MS).toISOString());
    expect((await api.post('/v1/order', orderBody(), { apiKey: other.apiKey })).status).toBe(200);
  });
});
