import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, expectError, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { orderBody, uid } from './support/fixtures.ts';
import { measureRoundTrips } from './support/round-trips.ts';

let api: TestApi;
let apiKey: string;

beforeAll(async () => {
  api = await startTestApi();
  apiKey = (await newMerchant()).apiKey;
});
afterAll(() => api.close());

describe('POST /v1/order', () => {
  it('answers the 4.1 shape with one cart-level decision', async () => {
    const body = orderBody();
    const response = await api.post('/v1/order', body, { apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    expect(Object.keys(response.body).sort()).toEqual([
      'cartLevelDecisions',
      'providerOrderID',
      'serviceOrderID',
    ]);
    expect(response.body.providerOrderID).toBe(body.providerOrderId);
    const [cart] = response.body.cartLevelDecisions;
    expect(cart.providerCartID).toBe(body.providerCartId);
    expect(cart.serviceCartID).toMatch(/^cart_/);
    const [decision] = cart.decisions;
    expect(Object.keys(decision).sort()).toEqual([
      'abuseScore',
      'decision',
      'decisionReason',
      'decisionType',
      'subDecision',
    ]);
    expect(decision.decisionType).toBe('APPROVE/DECLINE');
    expect(decision.decision).toBe('APPROVE');
    expect(Number.isInteger(decision.abuseScore)).toBe(true);
  });

  it('replays the same body with the original response and Idempotent-Replayed', async () => {
    const body = orderBody();
    const first = await api.post('/v1/order', body, { apiKey });
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await api.post('/v1/order', reordered, { apiKey });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('refuses a changed body with 409 duplicate_order', async () => {
    const body = orderBody();
    await api.post('/v1/order', body, { apiKey });
    const changed = await api.post(
      '/v1/order',
      { ...body, totalPrice: { currencyCode: '840', amount: '1.00' } },
      { apiKey },
    );
    expectError(changed, 409, 'duplicate_order');
  });

  it('treats a change of state and timestamp only as a status update with the original decision', async () => {
    const body = orderBody();
    const first = await api.post('/v1/order', body, { apiKey });
    const update = await api.post(
      '/v1/order',
      { ...body, state: 'AUTHORIZED', timestamp: String(Date.now()) },
      { apiKey },
    );
    expect(update.status).toBe(200);
    expect(update.body).toEqual(first.body);
    const { getOrder } = await import('../shared/store/orders.ts');
    const { findApiKeyByHash, hashApiKey } = await import('../shared/store/merchants.ts');
    const key = await findApiKeyByHash(hashApiKey(apiKey));
    expect((await getOrder(key!.merchantId, body.providerOrderId))?.state).toBe('AUTHORIZED');
  });

  it('records one order when 20 identical requests race, and every caller gets the same decision', async () => {
    const body = orderBody();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => api.post('/v1/order', body, { apiKey })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const serviceIds = new Set(responses.map((r) => r.body.serviceOrderID));
    expect(serviceIds.size).toBe(1);
    expect(new Set(responses.map((r) => JSON.stringify(r.body))).size).toBe(1);
    // Exactly one set of counter moves: the e-mail has one order in its history.
    const next = await api.post(
      '/v1/order',
      { ...orderBody({ email: body.customer.contactInformation[0]!.address as string }) },
      { apiKey },
    );
    expect(next.body.cartLevelDecisions[0].decisions[0].decisionReason).not.toContain('first order');
    const { normalizeEmail } = await import('../shared/identity/identities.ts');
    const { identityDigests } = await import('../shared/digests/identity-digests.ts');
    const { batchGetItems } = await import('../shared/store/batch-get.ts');
    const { identityKey } = await import('../shared/store/identity-history.ts');
    const { findApiKeyByHash, hashApiKey } = await import('../shared/store/merchants.ts');
    const merchantId = (await findApiKeyByHash(hashApiKey(apiKey)))!.merchantId;
    const identity = await identityDigests(merchantId);
    const ref = identity('email', normalizeEmail(body.customer.contactInformation[0]!.address as string));
    const [item] = [...(await batchGetItems([identityKey(merchantId, ref)])).values()];
    expect(item?.c_ord).toBe(2);
  });

  it('uses at most 3 sequential DynamoDB round trips on the warm path (measured: 2; the rate-limit token rides with the read)', async () => {
    await api.post('/v1/order', orderBody(), { apiKey }); // warms the key cache
    const { response, report } = await measureRoundTrips(() =>
      api.post('/v1/order', orderBody(), { apiKey }),
    );
    expect(response.status).toBe(200);
    expect(report).toEqual({
      own: ['BatchGetItemCommand', 'TransactWriteItemsCommand'],
      rateLimitTokens: 1,
      sequential: 2,
    });
  });

  it('scores from history: an order sharing a device with many e-mails scores higher than a clean one', async () => {
    const device = uid('shared-device');
    for (let i = 0; i < 4; i++) await api.post('/v1/order', orderBody({ device }), { apiKey });
    const clean = await api.post('/v1/order', orderBody(), { apiKey });
    const shared = await api.post('/v1/order', orderBody({ device }), { apiKey });
    const score = (r: ApiResponse) => r.body.cartLevelDecisions[0].decisions[0].abuseScore as number;
    expect(score(shared)).toBeGreaterThan(score(clean));
    expect(shared.body.cartLevelDecisions[0].decisions[0].decisionReason).toContain(
      'device used with 4 other e-mails',
    );
  });

  it("a couple's second e-mail on their new device at home is not a ring's wave; shipped elsewhere it is", async () => {
    const decision = (r: ApiResponse) => r.body.cartLevelDecisions[0].decisions[0];
    const secondEmailOnNewDevice = async (home: boolean) => {
      const device = uid('new-laptop');
      const street = `${uid('home')} Elm St`;
      const earlier = Date.now() - 3 * 86_400_000;
      await api.post('/v1/order', orderBody({ device, street, timestamp: earlier }), { apiKey });
      const second = orderBody({ device, ...(home ? { street } : {}) });
      return decision(await api.post('/v1/order', second, { apiKey }));
    };
    const atHome = await secondEmailOnNewDevice(true);
    const elsewhere = await secondEmailOnNewDevice(false);
    expect(atHome.decisionReason).not.toContain('already used with 1 other e-mail');
    expect(atHome.decision).toBe('APPROVE');
    expect(elsewhere.decisionReason).toContain(
      'device first seen 2 days ago, already used with 1 other e-mail',
    );
    expect(elsewhere.decision).toBe('DECLINE');
  });

  it('a family of six on its new tablet, all shipping home, is a household; six e-mails shipping to five drops are not', async () => {
    const decision = (r: ApiResponse) => r.body.cartLevelDecisions[0].decisions[0];
    const sixthEmailOnTablet = async (oneHome: boolean) => {
      const device = uid('family-tablet');
      const streets = Array.from({ length: 5 }, (_, i) => `${uid(oneHome ? 'home' : `drop-${i}`)} Oak St`);
      const home = streets[0]!;
      const started = Date.now() - 2 * 86_400_000;
      for (const [i, street] of streets.entries()) {
        const sent = orderBody({
          device,
          street: oneHome ? home : street,
          timestamp: started + i * 3_600_000,
        });
        await api.post('/v1/order', sent, { apiKey });
      }
      return decision(await api.post('/v1/order', orderBody({ device, street: home }), { apiKey }));
    };
    const family = await sixthEmailOnTablet(true);
    const drops = await sixthEmailOnTablet(false);
    expect(family.decisionReason).not.toContain('already used with 5 other e-mails');
    expect(family.decision).toBe('APPROVE');
    expect(drops.decisionReason).toContain('already used with 5 other e-mails');
    expect(drops.decision).toBe('DECLINE');
  });
});

describe('request validation (docs/decisions.md)', () => {
  const cases: [string, (b: ReturnType<typeof orderBody>) => unknown, number, string, string | undefined][] =
    [
      ['missing field', ({ providerOrderId: _, ...rest }) => rest, 400, 'invalid_request', 'providerOrderId'],
      ['wrong JSON type', (b) => ({ ...b, lineItems: 'many' }), 400, 'invalid_request', 'lineItems'],
      ['unknown field', (b) => ({ ...b, coupon: 'X' }), 422, 'unknown_field', 'coupon'],
      [
        'nested unknown field',
        (b) => ({ ...b, totalPrice: { ...b.totalPrice, cents: 1 } }),
        422,
        'unknown_field',
        'totalPrice.cents',
      ],
      [
        'bad currency',
        (b) => ({ ...b, totalPrice: { currencyCode: 'USD', amount: '1' } }),
        422,
        'invalid_currency_code',
        'totalPrice.currencyCode',
      ],
      [
        'bad nested currency',
        (b) => ({
          ...b,
          lineItems: [b.lineItems[0], { ...b.lineItems[0], unitPrice: { currencyCode: '000', amount: '1' } }],
        }),
        422,
        'invalid_currency_code',
        'lineItems[1].unitPrice.currencyCode',
      ],
      [
        'timestamp as a number',
        (b) => ({ ...b, timestamp: Number(b.timestamp) }),
        422,
        'invalid_timestamp',
        'timestamp',
      ],
      [
        'timestamp in seconds',
        (b) => ({ ...b, timestamp: String(Math.floor(Date.now() / 1000)) }),
        422,
        'invalid_timestamp',
        'timestamp',
      ],
      [
        'timestamp as ISO text',
        (b) => ({ ...b, timestamp: new Date().toISOString() }),
        422,
        'invalid_timestamp',
        'timestamp',
      ],
      ['unknown state', (b) => ({ ...b, state: 'SHIPPED' }), 422, 'unprocessable_entity', 'state'],
      [
        'negative amount',
        (b) => ({ ...b, totalPrice: { currencyCode: '840', amount: '-1' } }),
        422,
        'unprocessable_entity',
        'totalPrice.amount',
      ],
      [
        'zero quantity',
        (b) => ({ ...b, lineItems: [{ ...b.lineItems[0], quantity: '0' }] }),
        422,
        'unprocessable_entity',
        'lineItems[0].quantity',
      ],
      [
        'unknown contact type',
        (b) => ({
          ...b,
          customer: { ...b.customer, contactInformation: [{ contactType: 'Fax', number: '1' }] },
        }),
        422,
        'unprocessable_entity',
        'customer.contactInformation[0].contactType',
      ],
      [
        'too many line items',
        (b) => ({ ...b, lineItems: Array(251).fill(b.lineItems[0]) }),
        422,
        'unprocessable_entity',
        'lineItems',
      ],
      [
        'over-long string',
        (b) => ({ ...b, lineItems: [{ ...b.lineItems[0], title: 'x'.repeat(1025) }] }),
        422,
        'unprocessable_entity',
        'lineItems[0].title',
      ],
      [
        'missing field wins over a bad value',
        ({ intent: _, ...b }) => ({ ...b, state: 'NOPE' }),
        400,
        'invalid_request',
        'intent',
      ],
    ];

  for (const [name, mutate, status, code, field] of cases) {
    it(`${name} -> ${status} ${code}`, async () => {
      const response = await api.post('/v1/order', mutate(orderBody()), { apiKey });
      expectError(response, status, code, field);
    });
  }

  it('malformed JSON -> 400 invalid_request', async () => {
    expectError(
      await api.request('POST', '/v1/order', { apiKey, rawBody: '{"intent":' }),
      400,
      'invalid_request',
    );
  });

  it('no body with a valid key -> 400, never 401', async () => {
    expectError(await api.request('POST', '/v1/order', { apiKey }), 400, 'invalid_request');
  });

  it('a JSON array body -> 400 invalid_request', async () => {
    expectError(await api.request('POST', '/v1/order', { apiKey, rawBody: '[]' }), 400, 'invalid_request');
  });

  it('a body over 256 KiB -> 413 payload_too_large', async () => {
    const big = JSON.stringify({ ...orderBody(), customData: { blob: 'x'.repeat(300 * 1024) } });
    expectError(await api.request('POST', '/v1/order', { apiKey, rawBody: big }), 413, 'payload_too_large');
  });

  it('accepts free-form customData', async () => {
    const response = await api.post(
      '/v1/order',
      { ...orderBody(), customData: { loyalty: { tier: 'gold', points: 12 } } },
      { apiKey },
    );
    expect(response.status).toBe(200);
  });
});
