import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointName } from '../shared/contract/endpoints.ts';
import { accountBody, loginBody, signupBody } from './support/account-fixtures.ts';
import { type ApiResponse, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { disputeEntry, itemDisposition, placeOrder, returnBody } from './support/commerce.ts';
import { type EndpointFixture, prepareFixtures } from './support/endpoint-fixtures.ts';
import { orderBody, uid } from './support/fixtures.ts';

/**
 * docs/decisions.md bounds, for every endpoint: body over 256 KiB is 413; arrays (line items 250,
 * identifiers 20, returned items 250, dispositions 250, dispute entries 100, contacts 20,
 * fingerprints 20) and strings (1,024; ids 256) over their bound are 422 naming the field; nesting
 * past 32 levels is 422; the largest body a merchant can send is answered, never with a 5xx; and
 * `__proto__`/`constructor` keys are data, never a prototype.
 */
let api: TestApi;
let apiKey: string;
let fixtures: EndpointFixture[];

beforeAll(async () => {
  api = await startTestApi();
  apiKey = (await newMerchant({ accountUpdatesEnabled: true })).apiKey;
  fixtures = await prepareFixtures(api, apiKey);
});
afterAll(() => api.close());

// biome-ignore lint/suspicious/noExplicitAny: the cases reshape arbitrary request bodies
type Body = any;
const send = (endpoint: EndpointName, change: (body: Body) => Body | undefined = (b) => b) => {
  const { path, body } = fixtures.find((f) => f.endpoint === endpoint)!.validRequest();
  return api.post(path, change(body) ?? body, { apiKey });
};
const copies = <T>(n: number, make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i));
const device = () => ({ deviceIdentifier: uid('device') });
const email = () => ({ contactType: 'EMail', address: `${uid('b')}@example.com` });

function expectRefused(response: ApiResponse, status: number, code: string, field?: string) {
  expect(response.status, response.text).toBe(status);
  expect(response.body.error.code).toBe(code);
  if (field) expect(response.body.error.field).toBe(field);
}

describe('request body size', () => {
  it.each(['order', 'return', 'disposition', 'dispute', 'signup', 'login', 'account'] as const)(
    '%s: a body over 256 KiB is 413 payload_too_large',
    async (endpoint) => {
      expectRefused(
        await send(endpoint, (body) => ({ ...body, padding: 'x'.repeat(256 * 1024) })),
        413,
        'payload_too_large',
      );
    },
  );
});

describe('array bounds: at the bound accepted, one over it 422 naming the field', () => {
  const arrays: [EndpointName, string, number, (body: Body, n: number) => void][] = [
    ['order', 'lineItems', 250, (b, n) => (b.lineItems = copies(n, () => orderBody().lineItems[0]))],
    [
      'order',
      'lineItems[0].identifiers',
      20,
      (b, n) =>
        (b.lineItems[0].identifiers = copies(n, (i) => ({ identifierType: 'SKU', identifier: `s${i}` }))),
    ],
    [
      'order',
      'customer.contactInformation',
      20,
      (b, n) => (b.customer.contactInformation = copies(n, email)),
    ],
    ['order', 'deviceFingerprints', 20, (b, n) => (b.deviceFingerprints = copies(n, device))],
    [
      'return',
      'returnedLineItems',
      250,
      (b, n) => (b.returnedLineItems = copies(n, () => b.returnedLineItems[0])),
    ],
    [
      'return',
      'returnedLineItems[0].lineItem.identifiers',
      20,
      (b, n) =>
        b.returnedLineItems[0].lineItem.identifiers.push(
          ...copies(n - 1, (i) => ({ identifierType: 'UPC', identifier: `u${i}` })),
        ),
    ],
    ['return', 'deviceFingerprints', 20, (b, n) => (b.deviceFingerprints = copies(n, device))],
    [
      'dispute',
      'dispute',
      100,
      (b, n) => (b.dispute = copies(n, (i) => ({ ...b.dispute[0], timestamp: b.dispute[0].timestamp - i }))),
    ],
    ['signup', 'contactInformation', 20, (b, n) => (b.contactInformation = copies(n, email))],
    ['signup', 'deviceFingerprints', 20, (b, n) => (b.deviceFingerprints = copies(n, device))],
    ['login', 'deviceFingerprints', 20, (b, n) => (b.deviceFingerprints = copies(n, device))],
    [
      'login',
      'authMethod.deviceFingerprints',
      20,
      (b, n) => (b.authMethod.deviceFingerprints = copies(n, device)),
    ],
    ['account', 'deviceFingerprints', 20, (b, n) => (b.deviceFingerprints = copies(n, device))],
  ];
  it.each(arrays)('%s %s: %i', async (endpoint, field, bound, fill) => {
    const atBound = await send(endpoint, (body) => void fill(body, bound));
    expect(atBound.status, atBound.text).toBe(200);
    expectRefused(
      await send(endpoint, (body) => void fill(body, bound + 1)),
      422,
      'unprocessable_entity',
      field,
    );
  });

  it('disposition itemDispositions: 250 (one per item of a 250-item return), 251 is 422', async () => {
    const order = await placeOrder(api, apiKey, { items: copies(250, () => ({ sku: uid('sku') })) });
    const ret = returnBody(order);
    expect((await api.post('/v1/return', ret, { apiKey })).status).toBe(200);
    const path = `/v1/return/disposition/${ret.providerReturnId}`;
    const all = copies(250, (line) => itemDisposition(order, line, 'NEW', 'RESTOCK'));
    expect((await api.post(path, { itemDispositions: all }, { apiKey })).status).toBe(200);
    expectRefused(
      await api.post(path, { itemDispositions: [...all, all[0]] }, { apiKey }),
      422,
      'unprocessable_entity',
      'itemDispositions',
    );
  });
});

describe('string bounds: 1,024 characters (ids 256), one over is 422 naming the field', () => {
  const strings: [EndpointName, string, number, (body: Body, value: string) => void][] = [
    ['order', 'lineItems[0].title', 1024, (b, v) => (b.lineItems[0].title = v)],
    ['order', 'providerOrderId', 256, (b, v) => (b.providerOrderId = v)],
    ['return', 'reason', 1024, (b, v) => (b.reason = v)],
    ['return', 'providerReturnId', 256, (b, v) => (b.providerReturnId = v)],
    [
      'disposition',
      'itemDispositions[0].inspectionNote',
      1024,
      (b, v) => (b.itemDispositions[0].inspectionNote = v),
    ],
    [
      'disposition',
      'itemDispositions[0].warehouseIdentifier',
      256,
      (b, v) => (b.itemDispositions[0].warehouseIdentifier = v),
    ],
    ['dispute', 'dispute[0].disputeReason', 1024, (b, v) => (b.dispute[0].disputeReason = v)],
    ['dispute', 'dispute[0].disputeId', 256, (b, v) => (b.dispute[0].disputeId = v)],
    ['signup', 'firstName', 1024, (b, v) => (b.firstName = v)],
    ['signup', 'customerId', 256, (b, v) => (b.customerId = v)],
    ['login', 'siteDomain', 1024, (b, v) => (b.siteDomain = v)],
    ['login', 'providerCustomerId', 256, (b, v) => (b.providerCustomerId = v)],
    ['account', 'newValue', 1024, (b, v) => (b.newValue = v)],
    ['account', 'providerCustomerId', 256, (b, v) => (b.providerCustomerId = v)],
  ];
  it.each(strings)('%s %s: %i', async (endpoint, field, bound, set) => {
    // Multi-byte characters: the bound counts characters, and a full one still stores fine.
    const atBound = await send(
      endpoint,
      (body) => void set(body, `${uid('v')}${'é'.repeat(bound)}`.slice(0, bound)),
    );
    expect(atBound.status, atBound.text).toBe(200);
    expectRefused(
      await send(endpoint, (body) => void set(body, 'x'.repeat(bound + 1))),
      422,
      'unprocessable_entity',
      field,
    );
  });
});

describe('the largest bodies a merchant can send are answered, never with a 5xx', () => {
  const near256KiB = (response: ApiResponse) => {
    expect(response.status, response.text.slice(0, 300)).toBeLessThan(500);
  };

  it('order: 200 line items with 1,000-character titles (~225 KB)', async () => {
    const body = orderBody({ items: copies(200, () => ({ sku: uid('sku') })) });
    for (const line of body.lineItems) line.title = 't'.repeat(1000);
    const response = await api.post('/v1/order', body, { apiKey });
    expect(response.status).toBe(200);
  });

  it('return: 220 returned lines with 1,000-character reasons (~245 KB), stored whole', async () => {
    const order = await placeOrder(api, apiKey, { items: copies(220, () => ({ sku: uid('sku') })) });
    const body = returnBody(order);
    for (const line of body.returnedLineItems) line.reason = 'r'.repeat(1000);
    const response = await api.post('/v1/return', body, { apiKey });
    near256KiB(response);
    expect(response.status).toBe(200);
  });

  it('disposition: 100 items with notes and 2 images each, twice (replacing): 200 or 422, never 5xx', async () => {
    const order = await placeOrder(api, apiKey, { items: copies(100, () => ({ sku: uid('sku') })) });
    const ret = returnBody(order);
    expect((await api.post('/v1/return', ret, { apiKey })).status).toBe(200);
    const path = `/v1/return/disposition/${ret.providerReturnId}`;
    for (const note of ['a', 'b']) {
      const itemDispositions = copies(100, (line) => ({
        ...itemDisposition(order, line, 'NEW', 'RESTOCK'),
        inspectionNote: note.repeat(1024),
        images: copies(2, (i) => `https://img.example.com/${'p'.repeat(900)}/${i}.jpg`),
      }));
      near256KiB(await api.post(path, { itemDispositions }, { apiKey }));
    }
  });

  it('dispute: one dispute’s history filled with long events over several calls stays storable', async () => {
    const order = await placeOrder(api, apiKey);
    const disputeId = uid('dispute');
    const t0 = Date.now() - 1_000_000;
    for (let call = 0; call < 3; call++) {
      const entries = copies(100, (i) =>
        disputeEntry({ disputeId, disputeReason: 'R'.repeat(1024), timestamp: t0 + call * 1000 + i }),
      );
      const withSubreason = entries.map((e) => ({ ...e, disputeSubreason: 'S'.repeat(1024) }));
      const response = await api.post(
        `/v1/order/dispute/${order.providerOrderId}`,
        { dispute: withSubreason },
        { apiKey },
      );
      expect(response.status, response.text.slice(0, 300)).toBe(200);
    }
  });

  it('signup: 20 postal addresses with every field at 1,000 characters', async () => {
    const body = signupBody();
    const address = () => ({
      contactType: 'ContactAddress',
      addressType: 'Billing',
      address: Object.fromEntries(
        ['line1', 'line2', 'city', 'state', 'postalCode', 'country'].map((f) => [
          f,
          uid(f) + 'a'.repeat(990),
        ]),
      ),
    });
    body.contactInformation = [
      body.contactInformation[0]!,
      ...copies(19, address),
    ] as typeof body.contactInformation;
    expect((await api.post('/v1/evaluate/signup', body, { apiKey })).status).toBe(200);
  });

  it('login and account: every field at its bound', async () => {
    const login = {
      ...loginBody(),
      email: 'e'.repeat(1024),
      username: 'u'.repeat(1024),
      siteDomain: 's'.repeat(1024),
    };
    login.deviceFingerprints = copies(20, () => ({ deviceIdentifier: uid('d').padEnd(256, 'd') }));
    expect((await api.post('/v1/evaluate/login', login, { apiKey })).status).toBe(200);
    const account = accountBody({
      changeType: 'EMAIL_CHANGE',
      previousValue: 'p'.repeat(1024),
      newValue: 'n'.repeat(1024),
    });
    expect((await api.post('/v1/evaluate/account', account, { apiKey })).status).toBe(200);
  });
});

describe('nesting and prototype keys', () => {
  const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { d: nested(depth - 1) });

  it('free-form customData takes nesting up to 32 levels deep; deeper is 422 naming the path', async () => {
    expect((await send('order', (b) => ({ ...b, customData: nested(30) }))).status).toBe(200);
    const deep = await send('order', (b) => ({ ...b, customData: nested(40) }));
    expectRefused(deep, 422, 'unprocessable_entity');
    expect(deep.body.error.field).toMatch(/^customData(\.d)+$/);
  });

  it('a body nested 100,000 levels deep is refused as 422, not a stack overflow', async () => {
    const raw = `{"customData":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const response = await api.request('POST', '/v1/order', { apiKey, rawBody: raw });
    expectRefused(response, 422, 'unprocessable_entity');
  });

  it('`__proto__` and `constructor` keys are plain data: accepted in customData, unknown fields elsewhere', async () => {
    const { path, body } = fixtures.find((f) => f.endpoint === 'order')!.validRequest();
    const text = JSON.stringify(body).replace(
      /^\{/,
      '{"customData":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}},',
    );
    expect((await api.request('POST', path, { apiKey, rawBody: text })).status).toBe(200);
    const topLevel = JSON.stringify(body).replace(/^\{/, '{"__proto__":{"polluted":true},');
    expectRefused(
      await api.request('POST', path, { apiKey, rawBody: topLevel }),
      422,
      'unknown_field',
      '__proto__',
    );
    const nestedKey = JSON.stringify(body).replace(
      '"totalPrice":{',
      '"totalPrice":{"constructor":{"name":"x"},',
    );
    expectRefused(
      await api.request('POST', path, { apiKey, rawBody: nestedKey }),
      422,
      'unknown_field',
      'totalPrice.constructor',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});
