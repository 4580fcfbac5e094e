import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { normalizeEmail } from '../shared/identity/identities.ts';
import { batchGetItems } from '../shared/store/batch-get.ts';
import { identityKey } from '../shared/store/identity-history.ts';
import { getOrder } from '../shared/store/orders.ts';
import { newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { named, storedRef } from './support/commerce.ts';
import { clearFaults, injectFault } from './support/faults.ts';
import { orderBody } from './support/fixtures.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
afterEach(() => clearFaults());

describe('an order whose transaction fails', () => {
  it('leaves no order and no counters, answers 500 without internals, and its retry succeeds', async () => {
    const { merchantId, apiKey } = await newMerchant();
    const body = orderBody();
    const email = body.customer.contactInformation[0]!.address as string;
    injectFault('TransactWriteItemsCommand', () => new Error('injected: connection reset'));

    const failed = await api.post('/v1/order', body, { apiKey });
    expect(failed.status).toBe(500);
    expect(failed.body.error).toEqual({
      code: 'internal_error',
      message: 'An internal error occurred.',
      requestId: failed.headers.get('x-request-id'),
    });
    expect(await getOrder(merchantId, body.providerOrderId)).toBeUndefined();
    const emailKey = identityKey(
      merchantId,
      await storedRef(merchantId, named('email', normalizeEmail(email))),
    );
    expect((await batchGetItems([emailKey])).size).toBe(0);

    const retried = await api.post('/v1/order', body, { apiKey });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect((await getOrder(merchantId, body.providerOrderId))?.serviceOrderId).toBe(
      retried.body.serviceOrderID,
    );
    expect([...(await batchGetItems([emailKey])).values()][0]?.c_ord).toBe(1);
  });

  it('retries transaction conflicts and answers 503 with Retry-After once they persist', async () => {
    const { merchantId, apiKey } = await newMerchant();
    const conflict = () =>
      Object.assign(new Error('Transaction cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'TransactionConflict' }],
      });
    injectFault('TransactWriteItemsCommand', conflict, 2);
    const body = orderBody();
    expect((await api.post('/v1/order', body, { apiKey })).status).toBe(200); // two conflicts, then success

    injectFault('TransactWriteItemsCommand', conflict, 50);
    const exhausted = await api.post('/v1/order', orderBody(), { apiKey });
    expect(exhausted.status).toBe(503);
    expect(exhausted.body.error.code).toBe('service_unavailable');
    expect(Number(exhausted.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await getOrder(merchantId, body.providerOrderId)).toBeDefined();
  });
});
