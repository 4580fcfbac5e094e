import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from './support/admin.ts';
import { startTestApi, type TestApi, waitForKeyCacheExpiry } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('admin CLI', () => {
  it('merchant create prints merchantId, keyId and a sandbox apiKey that works', async () => {
    const result = await admin('merchant', 'create', '--name', 'Acme');
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(Object.keys(created).sort()).toEqual(['apiKey', 'keyId', 'merchantId']);
    expect(created.apiKey).toMatch(/^pk_test_[0-9A-Za-z]{40}$/);
    expect((await api.post('/v1/order', orderBody(), { apiKey: created.apiKey })).status).toBe(200);
  });

  it('key create --endpoints restricts the key; key revoke kills it', async () => {
    const { merchantId } = JSON.parse((await admin('merchant', 'create', '--name', 'Scoped')).stdout);
    const scoped = JSON.parse(
      (await admin('key', 'create', '--merchant', merchantId, '--endpoints', 'return,login')).stdout,
    );
    expect(Object.keys(scoped).sort()).toEqual(['apiKey', 'keyId', 'scope']);
    expect((await api.post('/v1/order', orderBody(), { apiKey: scoped.apiKey })).body.error.code).toBe(
      'forbidden',
    );

    const full = JSON.parse((await admin('key', 'create', '--merchant', merchantId)).stdout);
    expect((await api.post('/v1/order', orderBody(), { apiKey: full.apiKey })).status).toBe(200);
    const revoked = await admin('key', 'revoke', '--key-id', full.keyId);
    expect(JSON.parse(revoked.stdout)).toEqual({ keyId: full.keyId, revoked: true });
    await waitForKeyCacheExpiry();
    expect((await api.post('/v1/order', orderBody(), { apiKey: full.apiKey })).body.error.code).toBe(
      'invalid_api_key',
    );
  });

  it('merchant update suspends and re-enables a merchant, and toggles account updates', async () => {
    const { merchantId, apiKey } = JSON.parse((await admin('merchant', 'create', '--name', 'Toggle')).stdout);
    const suspended = JSON.parse(
      (await admin('merchant', 'update', '--merchant', merchantId, '--suspend')).stdout,
    );
    expect(suspended).toMatchObject({ merchantId, status: 'suspended' });
    await waitForKeyCacheExpiry();
    expect((await api.post('/v1/order', orderBody(), { apiKey })).body.error.code).toBe('forbidden');
    const enabled = JSON.parse(
      (await admin('merchant', 'update', '--merchant', merchantId, '--unsuspend', '--enable-account-updates'))
        .stdout,
    );
    expect(enabled).toMatchObject({ status: 'active', accountUpdatesEnabled: true });
  });

  it('bad arguments print usage and exit 2', async () => {
    for (const args of [
      [],
      ['merchant', 'create'],
      ['key', 'create', '--merchant', 'm', '--endpoints', 'nope'],
      ['key', 'revoke', '--bogus'],
    ]) {
      const result = await admin(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/Usage|usage/);
    }
  });

  it('an unknown merchant or key exits 1 with a JSON error', async () => {
    const result = await admin('key', 'revoke', '--key-id', 'key_doesnotexist');
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr)).toEqual({ error: 'no key key_doesnotexist' });
  });
});
