import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../shared/store/keys.ts';
import { getReturn } from '../shared/store/returns.ts';
import { getReview, reviewIdFor } from '../shared/store/reviews.ts';
import { type ApiResponse, expectError, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import {
  countersOf,
  deviceOf,
  emailOf,
  merchantIdOf,
  named,
  placeOrder,
  returnBody,
} from './support/commerce.ts';
import { orderBody, uid } from './support/fixtures.ts';
import { measureRoundTrips } from './support/round-trips.ts';

let api: TestApi;
let apiKey: string;
let merchantId: string;

beforeAll(async () => {
  api = await startTestApi();
  apiKey = (await newMerchant()).apiKey;
  merchantId = await merchantIdOf(apiKey);
});
afterAll(() => api.close());

const scoreOf = (response: ApiResponse, line = 0) =>
  response.body.returnedLineItems[line].abuseScore as number;

describe('POST /v1/return', () => {
  it('answers the 2.3 shape: one decision per returned line, `reason` not `decisionReason`', async () => {
    const order = await placeOrder(api, apiKey, {
      items: [{ sku: uid('sku') }, { sku: uid('sku'), quantity: 2, price: '10.00' }],
    });
    const body = returnBody(order);
    const response = await api.post('/v1/return', body, { apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(Object.keys(response.body).sort()).toEqual([
      'providerReturnId',
      'returnedLineItems',
      'serviceReturnId',
    ]);
    expect(response.body.providerReturnId).toBe(body.providerReturnId);
    expect(response.body.serviceReturnId).toMatch(/^ret_/);
    expect(response.body.returnedLineItems).toHaveLength(2);
    response.body.returnedLineItems.forEach((entry: Record<string, unknown>, i: number) => {
      expect(Object.keys(entry).sort()).toEqual([
        'abuseScore',
        'decision',
        'decisionType',
        'lineItem',
        'reason',
        'subDecision',
      ]);
      expect(entry.lineItem).toEqual(order.lineItems[i]!.identifiers[0]);
      expect(entry.decisionType).toBe('APPROVE/DECLINE/REVIEW');
      // A clean customer's first return.
      expect(entry.decision).toBe('APPROVE');
      expect(entry.subDecision).toBe('default_approve');
      expect(Number.isInteger(entry.abuseScore)).toBe(true);
    });
  });

  it('matches a returned line by any identifier type and value of the order line', async () => {
    const order = orderBody();
    const upc = { identifierType: 'UPC', identifier: uid('upc') };
    order.lineItems[0]!.identifiers.push(upc);
    expect((await api.post('/v1/order', order, { apiKey })).status).toBe(200);
    const body = returnBody(order);
    body.returnedLineItems[0]!.lineItem.identifiers = [
      { identifierType: 'EAN', identifier: uid('ean') },
      upc,
    ];
    const response = await api.post('/v1/return', body, { apiKey });
    expect(response.status).toBe(200);
    expect(response.body.returnedLineItems[0].lineItem.identifierType).toBe('EAN');
  });

  it('404 order_not_found for an unknown order and for another merchant’s order', async () => {
    const order = await placeOrder(api, apiKey);
    const unknown = await api.post(
      '/v1/return',
      { ...returnBody(order), providerOrderId: uid('no-such-order') },
      { apiKey },
    );
    expectError(unknown, 404, 'order_not_found');
    const other = (await newMerchant()).apiKey;
    expectError(await api.post('/v1/return', returnBody(order), { apiKey: other }), 404, 'order_not_found');
  });

  it('422 unprocessable_entity with the field path when a line matches no item of the order', async () => {
    const order = await placeOrder(api, apiKey, { items: [{ sku: uid('sku') }, { sku: uid('sku') }] });
    const body = returnBody(order);
    body.returnedLineItems[1]!.lineItem.identifiers = [{ identifierType: 'SKU', identifier: uid('other') }];
    expectError(
      await api.post('/v1/return', body, { apiKey }),
      422,
      'unprocessable_entity',
      'returnedLineItems[1].lineItem.identifiers',
    );
    // Same value under another identifier type is not a match either.
    const sameValue = returnBody(order);
    sameValue.returnedLineItems[0]!.lineItem.identifiers = [
      { identifierType: 'UPC', identifier: order.lineItems[0]!.identifiers[0]!.identifier },
    ];
    expectError(
      await api.post('/v1/return', sameValue, { apiKey }),
      422,
      'unprocessable_entity',
      'returnedLineItems[0].lineItem.identifiers',
    );
    expect(await getReturn(merchantId, body.providerReturnId)).toBeUndefined();
  });

  const invalid: [string, (b: ReturnType<typeof returnBody>) => unknown, number, string, string][] = [
    ['missing field', ({ reason: _, ...rest }) => rest, 400, 'invalid_request', 'reason'],
    [
      'returnMethod as a string',
      (b) => ({ ...b, returnMethod: 'Pickup' }),
      400,
      'invalid_request',
      'returnMethod',
    ],
    [
      'disposition spelling of the method',
      (b) => ({ ...b, returnMethod: { returnMethod: 'DROPOFF' } }),
      422,
      'unprocessable_entity',
      'returnMethod.returnMethod',
    ],
    [
      'CASH refund (dispositions only)',
      (b) => ({ ...b, refundMode: { refundMode: 'CASH' } }),
      422,
      'unprocessable_entity',
      'refundMode.refundMode',
    ],
    ['unknown status', (b) => ({ ...b, status: 'SHIPPED' }), 422, 'unprocessable_entity', 'status'],
    [
      'timestamp as a number',
      (b) => ({ ...b, timestamp: Number(b.timestamp) }),
      422,
      'invalid_timestamp',
      'timestamp',
    ],
    [
      'zero quantity',
      (b) => ({ ...b, returnedLineItems: [{ ...b.returnedLineItems[0], quantity: '0' }] }),
      422,
      'unprocessable_entity',
      'returnedLineItems[0].quantity',
    ],
    [
      'missing per-item reason',
      (b) => ({ ...b, returnedLineItems: [{ ...b.returnedLineItems[0], reason: undefined }] }),
      400,
      'invalid_request',
      'returnedLineItems[0].reason',
    ],
    ['unknown field', (b) => ({ ...b, rma: 'X' }), 422, 'unknown_field', 'rma'],
    [
      'too many returned items',
      (b) => ({ ...b, returnedLineItems: Array(251).fill(b.returnedLineItems[0]) }),
      422,
      'unprocessable_entity',
      'returnedLineItems',
    ],
  ];
  for (const [name, mutate, status, code, field] of invalid) {
    it(`${name} -> ${status} ${code}`, async () => {
      const order = await placeOrder(api, apiKey);
      expectError(await api.post('/v1/return', mutate(returnBody(order)), { apiKey }), status, code, field);
    });
  }
});

describe('return idempotency (docs/decisions.md)', () => {
  it('replays the same body with the original response and Idempotent-Replayed', async () => {
    const order = await placeOrder(api, apiKey);
    const body = returnBody(order);
    const first = await api.post('/v1/return', body, { apiKey });
    const again = await api.post('/v1/return', Object.fromEntries(Object.entries(body).reverse()), {
      apiKey,
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('409 duplicate_return for the same providerReturnId with a different body', async () => {
    const order = await placeOrder(api, apiKey);
    const body = returnBody(order);
    await api.post('/v1/return', body, { apiKey });
    expectError(
      await api.post('/v1/return', { ...body, reason: 'Something else' }, { apiKey }),
      409,
      'duplicate_return',
      'providerReturnId',
    );
  });

  it('records RECEIVED and COMPLETED as status updates and answers the original decision', async () => {
    const order = await placeOrder(api, apiKey);
    const body = returnBody(order);
    const first = await api.post('/v1/return', body, { apiKey });
    const received = await api.post(
      '/v1/return',
      { ...body, status: 'RECEIVED', timestamp: String(Date.now() - 500) },
      { apiKey },
    );
    expect(received.status).toBe(200);
    expect(received.headers.get('idempotent-replayed')).toBeNull();
    expect(received.text).toBe(first.text);
    expect((await getReturn(merchantId, body.providerReturnId))?.status).toBe('RECEIVED');
    await api.post('/v1/return', { ...body, status: 'COMPLETED', timestamp: String(Date.now()) }, { apiKey });
    // A late, older update is kept in the history but does not change the status.
    await api.post(
      '/v1/return',
      { ...body, status: 'APPROVED', timestamp: String(Date.now() - 800) },
      { apiKey },
    );
    const stored = await getReturn(merchantId, body.providerReturnId);
    expect(stored?.status).toBe('COMPLETED');
    expect(stored?.statusHistory.map((e) => e.status)).toEqual([
      'REQUESTED',
      'RECEIVED',
      'COMPLETED',
      'APPROVED',
    ]);
  });

  it('CANCELLED removes exactly what the return added, once', async () => {
    const order = await placeOrder(api, apiKey, {
      items: [{ sku: uid('sku'), quantity: 2, price: '30.00' }],
    });
    const email = emailOf(order);
    const body = returnBody(order, { lines: [{ line: 0, quantity: 2 }] });
    await api.post('/v1/return', body, { apiKey });
    const counted = await countersOf(merchantId, email);
    expect(counted.c_ret).toBe(1);
    expect(counted.c_retV).toBe(60);
    const cancel = { ...body, status: 'CANCELLED', timestamp: String(Date.now()) };
    for (let i = 0; i < 3; i++) expect((await api.post('/v1/return', cancel, { apiKey })).status).toBe(200);
    const after = await countersOf(merchantId, email);
    expect(after.c_ret).toBe(0);
    expect(after.c_retV).toBe(0);
    expect(after.c_ord).toBe(1);
    expect((await getReturn(merchantId, body.providerReturnId))?.applied).toBeUndefined();
    // The units it returned are free again: returning both units now is not "more than bought".
    const again = await api.post('/v1/return', returnBody(order, { lines: [{ line: 0, quantity: 2 }] }), {
      apiKey,
    });
    expect(again.body.returnedLineItems[0].reason).not.toContain('units returned');
  });

  it('counts a return sent 10 times at once exactly once, and every caller gets the same answer', async () => {
    const order = await placeOrder(api, apiKey);
    const body = returnBody(order);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => api.post('/v1/return', body, { apiKey })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(new Set(responses.map((r) => r.text)).size).toBe(1);
    expect((await countersOf(merchantId, emailOf(order))).c_ret).toBe(1);
    expect((await countersOf(merchantId, deviceOf(order))).c_retV).toBe(49.99);
  });
});

describe('return history and scoring', () => {
  it('moves returns and returned value on every identity of the order and on the return’s device', async () => {
    const order = await placeOrder(api, apiKey, { items: [{ sku: uid('sku'), price: '20.00' }] });
    const returnDevice = uid('return-device');
    await api.post('/v1/return', returnBody(order, { device: returnDevice }), { apiKey });
    for (const ref of [emailOf(order), deviceOf(order), named('device', returnDevice)]) {
      const counters = await countersOf(merchantId, ref);
      expect(counters.c_ret).toBe(1);
      expect(counters.c_retV).toBe(20);
    }
  });

  it('sees more units returned than bought, across returns, as a strong signal (not an error)', async () => {
    const order = await placeOrder(api, apiKey, { items: [{ sku: uid('sku'), quantity: 1 }] });
    const first = await api.post('/v1/return', returnBody(order), { apiKey });
    const second = await api.post('/v1/return', returnBody(order), { apiKey });
    expect(second.status).toBe(200);
    expect(second.body.returnedLineItems[0].reason).toContain('2 units returned of 1 bought');
    expect(scoreOf(second)).toBeGreaterThan(scoreOf(first) + 20);
    expect(second.body.returnedLineItems[0].decision).toBe('REVIEW');
    // A REVIEW decision puts the returned item into the merchant's review queue, in the same write.
    const providerReturnId = second.body.providerReturnId as string;
    const review = await getReview(
      merchantId,
      reviewIdFor('return', keys.return(merchantId, providerReturnId)),
    );
    expect(review?.decisions).toEqual([
      expect.objectContaining({
        itemRef: `SKU:${order.lineItems[0]!.identifiers[0]!.identifier}`,
        decision: 'REVIEW',
      }),
    ]);
  });

  it('uses at most 3 sequential DynamoDB round trips on the warm path (measured: 3; the rate-limit token rides with the first read)', async () => {
    const order = await placeOrder(api, apiKey);
    const { response, report } = await measureRoundTrips(() =>
      api.post('/v1/return', returnBody(order), { apiKey }),
    );
    expect(response.status).toBe(200);
    expect(report).toEqual({
      own: ['BatchGetItemCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand'],
      rateLimitTokens: 1,
      sequential: 3,
    });
  });
});
