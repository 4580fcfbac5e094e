import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchGetItems } from '../shared/store/batch-get.ts';
import { documentClient, tableName } from '../shared/store/client.ts';
import { keys } from '../shared/store/keys.ts';
import { newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { countedRequest, IDEMPOTENCY_KEY_ENDPOINTS, returnedOrder } from './support/endpoint-fixtures.ts';
import { uid } from './support/fixtures.ts';
import { measureRoundTrips } from './support/round-trips.ts';

let api: TestApi;
let apiKey: string;
let merchantId: string;

beforeAll(async () => {
  api = await startTestApi();
  ({ apiKey, merchantId } = await newMerchant({ accountUpdatesEnabled: true }));
});
afterAll(() => api.close());

const withKey = (key: string, other: Record<string, string> = {}) => ({
  apiKey,
  headers: { 'Idempotency-Key': key, ...other },
});

/** The same JSON with keys in reverse order and extra whitespace: canonically the same body. */
function reshuffled(body: Record<string, unknown>): string {
  const reverse = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(reverse)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .reverse()
              .map(([k, v]) => [k, reverse(v)]),
          )
        : value;
  return JSON.stringify(reverse(body), null, 3);
}

const recordOf = async (endpoint: string, key: string) =>
  [...(await batchGetItems([keys.idempotencyKey(merchantId, endpoint, key)])).values()][0];

describe.each(IDEMPOTENCY_KEY_ENDPOINTS)('Idempotency-Key on %s (docs/decisions.md)', (endpoint) => {
  it('same key and same canonical body: the original response, Idempotent-Replayed: true, applied once', async () => {
    const request = await countedRequest(endpoint, api, apiKey, merchantId);
    const key = uid('key');
    const first = await api.post(request.path, request.body, withKey(key));
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await api.request('POST', request.path, {
      ...withKey(key),
      rawBody: reshuffled(request.body),
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
    expect(await request.probe()).toBe(1);
  });

  it('same key with a different body: 409 idempotency_key_reused, nothing applied', async () => {
    const request = await countedRequest(endpoint, api, apiKey, merchantId);
    const other = await countedRequest(endpoint, api, apiKey, merchantId);
    const key = uid('key');
    expect((await api.post(request.path, request.body, withKey(key))).status).toBe(200);
    const reused = await api.post(other.path, other.body, withKey(key));
    expect(reused.status).toBe(409);
    expect(reused.body.error).toMatchObject({ code: 'idempotency_key_reused', field: 'Idempotency-Key' });
    expect(await other.probe()).toBe(0);
  });

  it('records the key with a 24 h expiresAt in the request’s own transaction: no extra round trip', async () => {
    const request = await countedRequest(endpoint, api, apiKey, merchantId);
    const key = uid('key');
    const { response, report } = await measureRoundTrips(() =>
      api.post(request.path, request.body, withKey(key)),
    );
    expect(response.status).toBe(200);
    // The counted disposition (an empty box) puts the return on the watch list: its entries read
    // their identities first, the key or not.
    const listRead = endpoint === 'disposition' ? ['BatchGetItemCommand'] : [];
    expect(report).toEqual({
      own: ['BatchGetItemCommand', ...listRead, 'TransactWriteItemsCommand'],
      rateLimitTokens: 1,
      sequential: 2 + listRead.length,
    });
    const record = await recordOf(endpoint, key);
    const dayFromNow = Math.floor(Date.now() / 1000) + 86_400;
    expect(record?.expiresAt).toBeGreaterThan(dayFromNow - 60);
    expect(record?.expiresAt).toBeLessThanOrEqual(dayFromNow);
    expect(record?.responseJson).toBe(response.text);
  });

  it('ten concurrent requests with one key: applied once, every caller gets the same answer', async () => {
    const request = await countedRequest(endpoint, api, apiKey, merchantId);
    const key = uid('key');
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => api.post(request.path, request.body, withKey(key))),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(responses.map((r) => r.text)).size).toBe(1);
    expect(await request.probe()).toBe(1);
  });

  it('an expired record still present (TTL deletes lazily) counts as absent', async () => {
    const request = await countedRequest(endpoint, api, apiKey, merchantId);
    const key = uid('key');
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.idempotencyKey(merchantId, endpoint, key),
          requestHash: 'from-an-older-request',
          responseJson: '{"stale":true}',
          expiresAt: Math.floor(Date.now() / 1000) - 1,
        },
      }),
    );
    const response = await api.post(request.path, request.body, withKey(key));
    expect(response.status).toBe(200);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    expect(await request.probe()).toBe(1);
    expect((await recordOf(endpoint, key))?.responseJson).toBe(response.text);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'schlüssel'],
    ['a control character', 'tab\there'],
  ])('a malformed key (%s): 400 invalid_request on Idempotency-Key, nothing applied', async (_label, key) => {
    const request = await countedRequest(endpoint, api, apiKey, merchantId);
    const response = await api.post(request.path, request.body, withKey(key));
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_request', field: 'Idempotency-Key' });
    expect(await request.probe()).toBe(0);
  });

  it('takes any printable ASCII key up to 255 characters, scoped per merchant and endpoint', async () => {
    const key = ` ${'~!#$%&*+/=?^_`{|}'.repeat(14)}`.slice(0, 255);
    const request = await countedRequest(endpoint, api, apiKey, merchantId);
    expect((await api.post(request.path, request.body, withKey(key))).status).toBe(200);
    // Another merchant using the same key is a different key altogether.
    const other = await newMerchant({ accountUpdatesEnabled: true });
    const theirs = await countedRequest(endpoint, api, other.apiKey, other.merchantId);
    const response = await api.post(theirs.path, theirs.body, {
      apiKey: other.apiKey,
      headers: { 'Idempotency-Key': key },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('Idempotency-Key edge cases', () => {
  it('a refused request (404) records no key: its retry, once valid, runs', async () => {
    const key = uid('key');
    const path = `/v1/return/disposition/${uid('no-such-return')}`;
    const body = {
      itemDispositions: [
        {
          identifierType: 'SKU',
          identifier: 'x',
          returnedItemCondition: 'NEW',
          dispositionOutcome: 'RESTOCK',
        },
      ],
    };
    expect((await api.post(path, body, withKey(key))).status).toBe(404);
    expect(await recordOf('disposition', key)).toBeUndefined();
  });

  it('a re-sent disposition that changes nothing still binds its new key (written alone)', async () => {
    const { order, providerReturnId } = await returnedOrder(api, apiKey);
    const path = `/v1/return/disposition/${encodeURIComponent(providerReturnId)}`;
    const [first] = order.lineItems[0]!.identifiers;
    const body = {
      itemDispositions: [{ ...first, returnedItemCondition: 'NEW', dispositionOutcome: 'RESTOCK' }],
    };
    expect((await api.post(path, body, { apiKey })).status).toBe(200);
    const key = uid('key');
    const same = await api.post(path, body, withKey(key));
    expect(same.status).toBe(200);
    expect((await recordOf('disposition', key))?.responseJson).toBe(same.text);
    const other = {
      itemDispositions: [{ ...first, returnedItemCondition: 'EMPTY_BOX', dispositionOutcome: 'RESTOCK' }],
    };
    expect((await api.post(path, other, withKey(key))).body.error.code).toBe('idempotency_key_reused');
  });

  it('endpoints whose body carries its own key ignore the header (order, return, signup)', async () => {
    for (const endpoint of ['order', 'return', 'signup'] as const) {
      const request = await countedRequest(endpoint, api, apiKey, merchantId);
      const response = await api.post(request.path, request.body, withKey(''));
      expect(response.status, endpoint).toBe(200);
    }
  });
});
