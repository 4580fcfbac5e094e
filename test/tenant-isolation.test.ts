import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../shared/contract/endpoints.ts';
import { batchGetItems } from '../shared/store/batch-get.ts';
import { keys, type TableKey } from '../shared/store/keys.ts';
import { createApiKey, setMerchantStatus } from '../shared/store/merchants.ts';
import { signupBody } from './support/account-fixtures.ts';
import { type ApiResponse, newMerchant, startTestApi, TEST_OPERATOR, type TestApi } from './support/api.ts';
import { disputeEntry, itemDisposition, returnBody } from './support/commerce.ts';
import { countedRequest, returnedOrder } from './support/endpoint-fixtures.ts';
import { orderBody, uid } from './support/fixtures.ts';

/**
 * docs/decisions.md: every stored record is scoped by merchant; one merchant referencing another's
 * order, return or dispute gets the same 404 as for one that does not exist, and changes nothing.
 */
let api: TestApi;
type Merchant = Awaited<ReturnType<typeof newMerchant>>;
let a: Merchant;
let b: Merchant;

beforeAll(async () => {
  api = await startTestApi();
  a = await newMerchant({ accountUpdatesEnabled: true });
  b = await newMerchant({ accountUpdatesEnabled: true });
});
afterAll(() => api.close());

/** What a caller can see of an error: everything but the request id. */
const visible = (response: ApiResponse) => {
  const { requestId: _requestId, ...error } = response.body.error;
  return { status: response.status, error };
};

/** Every item under the given keys, to show they are byte-for-byte unchanged afterwards. */
const itemsAt = async (itemKeys: TableKey[]) =>
  JSON.stringify([...(await batchGetItems(itemKeys)).entries()].sort(), (_k, v) =>
    v instanceof Set ? [...v].sort() : v,
  );

describe('one merchant cannot reach another’s objects', () => {
  it('return -> order: B naming A’s order gets the 404 of an unknown order; A’s order is unchanged', async () => {
    const { order } = await returnedOrder(api, a.apiKey);
    const aKeys = [
      keys.order(a.merchantId, order.providerOrderId),
      keys.orderReturnedUnits(a.merchantId, order.providerOrderId),
    ];
    const before = await itemsAt(aKeys);
    const theirs = await api.post('/v1/return', returnBody(order), { apiKey: b.apiKey });
    const unknown = await api.post(
      '/v1/return',
      returnBody({ ...order, providerOrderId: uid('no-such-order') }),
      { apiKey: b.apiKey },
    );
    expect(visible(theirs)).toEqual(visible(unknown));
    expect(theirs.body.error.code).toBe('order_not_found');
    expect(await itemsAt(aKeys)).toBe(before);
  });

  it('disposition -> return: B naming A’s return gets the 404 of an unknown return; A’s return is unchanged', async () => {
    const { order, providerReturnId } = await returnedOrder(api, a.apiKey);
    const aKeys = [
      keys.return(a.merchantId, providerReturnId),
      keys.returnDispositions(a.merchantId, providerReturnId),
    ];
    const before = await itemsAt(aKeys);
    const body = { itemDispositions: [itemDisposition(order, 0, 'EMPTY_BOX', 'REMOVE_SUSPECT_ABUSE')] };
    const theirs = await api.post(`/v1/return/disposition/${providerReturnId}`, body, { apiKey: b.apiKey });
    const unknown = await api.post(`/v1/return/disposition/${uid('no-such-return')}`, body, {
      apiKey: b.apiKey,
    });
    expect(visible(theirs)).toEqual(visible(unknown));
    expect(theirs.body.error.code).toBe('return_not_found');
    expect(await itemsAt(aKeys)).toBe(before);
  });

  it('dispute -> order: B naming A’s order (and A’s dispute id) gets the 404 of an unknown order', async () => {
    const { order } = await returnedOrder(api, a.apiKey);
    const entry = disputeEntry({ disputeStatus: 'OPEN' });
    expect(
      (
        await api.post(
          `/v1/order/dispute/${order.providerOrderId}`,
          { dispute: [entry] },
          { apiKey: a.apiKey },
        )
      ).status,
    ).toBe(200);
    const aKeys = [
      keys.order(a.merchantId, order.providerOrderId),
      keys.dispute(a.merchantId, entry.disputeId),
    ];
    const before = await itemsAt(aKeys);
    const lost = { dispute: [{ ...entry, disputeStatus: 'LOST', timestamp: Date.now() }] };
    const theirs = await api.post(`/v1/order/dispute/${order.providerOrderId}`, lost, { apiKey: b.apiKey });
    const unknown = await api.post(`/v1/order/dispute/${uid('no-such-order')}`, lost, { apiKey: b.apiKey });
    expect(visible(theirs)).toEqual(visible(unknown));
    expect(theirs.body.error.code).toBe('order_not_found');
    expect(await itemsAt(aKeys)).toBe(before);
    expect((await batchGetItems([keys.dispute(b.merchantId, entry.disputeId)])).size).toBe(0);
  });

  it('ids are per merchant: B reusing A’s order id and customer id gets records of its own', async () => {
    const order = orderBody();
    const first = await api.post('/v1/order', order, { apiKey: a.apiKey });
    const before = await itemsAt([keys.order(a.merchantId, order.providerOrderId)]);
    const mine = await api.post('/v1/order', { ...order, state: 'PENDING' }, { apiKey: b.apiKey });
    expect(mine.status).toBe(200);
    expect(mine.headers.get('idempotent-replayed')).toBeNull();
    expect(mine.body.serviceOrderID).not.toBe(first.body.serviceOrderID);
    expect(await itemsAt([keys.order(a.merchantId, order.providerOrderId)])).toBe(before);

    const signup = signupBody();
    expect((await api.post('/v1/evaluate/signup', signup, { apiKey: a.apiKey })).status).toBe(200);
    expect((await api.post('/v1/evaluate/signup', signup, { apiKey: b.apiKey })).status).toBe(200);
  });
});

describe('key scopes and merchant status (docs/decisions.md)', () => {
  it('verifies the stored key hash against the presented key’s (constant time), not the lookup alone', async () => {
    const { hashApiKey, findApiKeyByHash } = await import('../shared/store/merchants.ts');
    const { documentClient, tableName } = await import('../shared/store/client.ts');
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { apiKey } = await newMerchant();
    // A key item addressed by this key's hash but recording another hash (a corrupt or forged item).
    const { randomBase62 } = await import('../shared/ids.ts');
    const forged = `pk_test_${randomBase62(40)}`;
    const genuine = await findApiKeyByHash(hashApiKey(apiKey));
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.apiKey(hashApiKey(forged)), ...genuine, keyHash: hashApiKey(apiKey) },
      }),
    );
    const response = await api.post('/v1/order', orderBody(), { apiKey: forged });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_api_key');
  });

  it.each(ENDPOINTS)(
    'a key restricted to other endpoints gets 403 forbidden on %s, and nothing is recorded',
    async (endpoint) => {
      const scoped = await createApiKey({
        merchantId: a.merchantId,
        environment: 'sandbox',
        endpoints: ENDPOINTS.filter((e) => e !== endpoint),
      });
      const request = await countedRequest(endpoint, api, a.apiKey, a.merchantId);
      const response = await api.post(request.path, request.body, { apiKey: scoped!.apiKey });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('forbidden');
      expect(await request.probe()).toBe(0);
      const allowed = await createApiKey({
        merchantId: a.merchantId,
        environment: 'sandbox',
        endpoints: [endpoint],
      });
      expect((await api.post(request.path, request.body, { apiKey: allowed!.apiKey })).status).toBe(200);
    },
  );

  it.each(ENDPOINTS)('a suspended merchant gets 403 forbidden on %s', async (endpoint) => {
    const merchant = await newMerchant({ accountUpdatesEnabled: true });
    const request = await countedRequest(endpoint, api, merchant.apiKey, merchant.merchantId);
    // A fresh key, so no warm instance holds the merchant as active (the key cache).
    const key = await createApiKey({ merchantId: merchant.merchantId, environment: 'sandbox' });
    await setMerchantStatus(merchant.merchantId, 'suspended', TEST_OPERATOR);
    const response = await api.post(request.path, request.body, { apiKey: key!.apiKey });
    expect(response.status).toBe(403);
    expect(response.body.error.code).toBe('forbidden');
    expect(await request.probe()).toBe(0);
  });
});
