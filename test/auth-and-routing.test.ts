import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectError,
  newMerchant,
  startTestApi,
  TEST_OPERATOR,
  type TestApi,
  waitForKeyCacheExpiry,
} from './support/api.ts';
import { orderBody } from './support/fixtures.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('authentication (docs/decisions.md)', () => {
  it('missing header -> 401 unauthenticated', async () => {
    expectError(await api.post('/v1/order', orderBody()), 401, 'unauthenticated');
  });

  it('malformed key -> 401 invalid_api_key', async () => {
    expectError(
      await api.post('/v1/order', orderBody(), { apiKey: 'pk_test_short' }),
      401,
      'invalid_api_key',
    );
  });

  it('unknown well-formed key -> 401 invalid_api_key', async () => {
    expectError(
      await api.post('/v1/order', orderBody(), { apiKey: `pk_test_${'A'.repeat(40)}` }),
      401,
      'invalid_api_key',
    );
  });

  it('production key against the sandbox -> 401 environment_mismatch', async () => {
    expectError(
      await api.post('/v1/order', orderBody(), { apiKey: `pk_live_${'A'.repeat(40)}` }),
      401,
      'environment_mismatch',
    );
  });

  it('tolerates a Bearer prefix', async () => {
    const { apiKey } = await newMerchant();
    const response = await api.post('/v1/order', orderBody(), { apiKey: `Bearer ${apiKey}` });
    expect(response.status).toBe(200);
  });

  it('a key restricted to other endpoints -> 403 forbidden', async () => {
    const { merchantId } = await newMerchant();
    const { createApiKey } = await import('../shared/store/merchants.ts');
    const scoped = await createApiKey({ merchantId, environment: 'sandbox', endpoints: ['return'] });
    expectError(await api.post('/v1/order', orderBody(), { apiKey: scoped!.apiKey }), 403, 'forbidden');
  });

  it('a suspended merchant -> 403 forbidden (within the key cache lifetime)', async () => {
    const { merchantId, apiKey } = await newMerchant();
    const { setMerchantStatus } = await import('../shared/store/merchants.ts');
    await setMerchantStatus(merchantId, 'suspended', TEST_OPERATOR);
    expectError(await api.post('/v1/order', orderBody(), { apiKey }), 403, 'forbidden');
  });

  it('a revoked key is refused once the key cache entry expires', async () => {
    const { merchantId } = await newMerchant();
    const { createApiKey, revokeApiKey } = await import('../shared/store/merchants.ts');
    const issued = await createApiKey({ merchantId, environment: 'sandbox' });
    expect((await api.post('/v1/order', orderBody(), { apiKey: issued!.apiKey })).status).toBe(200);
    expect(await revokeApiKey(issued!.keyId, TEST_OPERATOR)).toBe(true);
    await waitForKeyCacheExpiry(); // the test cache lives 4 s; production 30 s
    expectError(await api.post('/v1/order', orderBody(), { apiKey: issued!.apiKey }), 401, 'invalid_api_key');
  });
});

describe('routing', () => {
  it('unknown path with a valid key -> 404 not_found', async () => {
    const { apiKey } = await newMerchant();
    expectError(await api.post('/v1/orders', {}, { apiKey }), 404, 'not_found');
  });

  it('unknown path without a key -> 401 (authentication comes first)', async () => {
    expectError(await api.post('/v1/nowhere', {}), 401, 'unauthenticated');
  });

  it('wrong method on a known path -> 405 with Allow: POST', async () => {
    const { apiKey } = await newMerchant();
    const response = await api.request('GET', '/v1/order', { apiKey });
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('POST');
  });
});
