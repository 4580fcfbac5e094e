import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINT_DOCS, errorsOf } from '../shared/contract/endpoint-docs.ts';
import { API_SCHEMAS, ENDPOINT_SCHEMAS } from '../shared/contract/endpoint-schemas.ts';
import { ENDPOINT_DEFINITIONS, ENDPOINTS } from '../shared/contract/endpoints.ts';
import { API_DEFINITIONS, API_ENDPOINTS } from '../shared/contract/management-endpoints.ts';
import { buildOpenApiDocument } from '../shared/contract/openapi.ts';
import { ERROR_CATALOG } from '../shared/errors.ts';
import { AddressRateLimit, type AddressVerdict } from '../shared/http/address-rate-limit.ts';
import { newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { assertMatchesContract, checkResponse } from './support/contract.ts';

const FILE = join(import.meta.dirname, '..', 'openapi.json');
const committed = readFileSync(FILE, 'utf8');
type Operation = {
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  requestBody: { content: { 'application/json': { schema: unknown; examples?: Record<string, unknown> } } };
  responses: Record<
    string,
    { headers?: Record<string, unknown>; content: Record<string, { schema: unknown }> }
  >;
};
const document = JSON.parse(committed) as {
  openapi: string;
  servers: { url: string }[];
  components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
  paths: Record<string, Record<string, Operation>>;
};

describe('openapi.json (generated from the endpoint registry)', () => {
  it('is what `npm run openapi` writes now: committed and not stale, the same bytes on every run', () => {
    const generated = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
    expect(generated === committed, 'openapi.json is stale: run npm run openapi').toBe(true);
    expect(`${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`).toBe(generated);
  });

  it('lints clean with @apidevtools/swagger-parser (OpenAPI 3.1 schema + references)', async () => {
    const api = await SwaggerParser.validate(FILE);
    console.info(
      `swagger-parser: openapi.json is valid OpenAPI ${(api as { openapi?: string }).openapi}, ${Object.keys(api.paths ?? {}).length} paths`,
    );
    expect(document.openapi).toBe('3.1.0');
  });

  it('has every endpoint with its request body, example, 200 schema and each error it can give', () => {
    expect(document.servers.map((s) => s.url)).toHaveLength(2);
    expect(document.components.securitySchemes.ApiKey).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
    for (const name of ENDPOINTS) {
      const definition = ENDPOINT_DEFINITIONS[name];
      const operation = document.paths[definition.path]?.post;
      expect(operation, definition.path).toBeDefined();
      expect(operation!.requestBody.content['application/json'].schema).toBeDefined();
      expect(Object.keys(operation!.requestBody.content['application/json'].examples ?? {})).toHaveLength(1);
      expect(operation!.responses['200']!.headers).toHaveProperty('X-Request-Id');
      expect(operation!.responses['200']!.headers).toHaveProperty('Idempotent-Replayed');
      const statuses = new Set(
        errorsOf({ ...definition, ...ENDPOINT_DOCS[name] }).map((code) => String(ERROR_CATALOG[code].status)),
      );
      expect(new Set(Object.keys(operation!.responses).filter((s) => s !== '200'))).toEqual(statuses);
      expect(operation!.responses['429']!.headers).toHaveProperty('Retry-After');
      expect(operation!.responses['429']!.headers).toHaveProperty('RateLimit-Policy');
      const keyHeader = operation!.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
      expect(keyHeader, name).toBe(definition.idempotency.kind === 'idempotency-key-header');
    }
    expect(document.paths['/v1/openapi.json']?.get?.security).toEqual([]);
  });

  it('shows examples (from examples/) that the endpoint accepts', () => {
    for (const name of ENDPOINTS) {
      const definition = { ...ENDPOINT_DEFINITIONS[name], ...ENDPOINT_SCHEMAS[name] };
      const examples =
        document.paths[definition.path]!.post!.requestBody.content['application/json'].examples ?? {};
      for (const [id, { value }] of Object.entries(examples as Record<string, { value: unknown }>)) {
        const parsed = definition.request.safeParse(value);
        expect(parsed.success, `${name} example ${id}: ${parsed.error?.message ?? ''}`).toBe(true);
      }
    }
  });

  it('shows the management endpoints’ examples, which they accept', () => {
    const documented = API_ENDPOINTS.filter(
      (name) => ENDPOINT_DOCS[name].exampleFile && !ENDPOINTS.includes(name as never),
    );
    expect(documented).toEqual(expect.arrayContaining(['listEntryAdd', 'listRulesSave']));
    for (const name of documented) {
      const { path, method } = API_DEFINITIONS[name];
      const operation = document.paths[path]![method.toLowerCase()]!;
      const examples = Object.values(operation.requestBody.content['application/json'].examples ?? {});
      expect(examples, name).toHaveLength(1);
      for (const { value } of examples as { value: unknown }[]) {
        const parsed = API_SCHEMAS[name]!.request!.safeParse(value);
        expect(parsed.success, `${name} example: ${parsed.error?.message ?? ''}`).toBe(true);
      }
    }
  });
});

describe('GET /v1/openapi.json on the local server', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('serves the committed document without an API key, stating the limit per client address', async () => {
    const response = await api.request('GET', '/v1/openapi.json', { headers: {} });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('ratelimit-policy')).toBe('"document";q=30;w=60');
    expect(response.headers.get('ratelimit')).toMatch(/^"document";r=\d+;t=\d+$/);
    expect(response.body).toEqual(JSON.parse(committed));
  });

  it('answers another method on it 405 with Allow: GET (after authentication, like every wrong method)', async () => {
    const { apiKey } = await newMerchant();
    const response = await api.request('POST', '/v1/openapi.json', { apiKey, rawBody: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });
});

describe('the limit per client address of GET /v1/openapi.json (shared/http/address-rate-limit.ts)', () => {
  const limit = () =>
    new AddressRateLimit({ policy: 'document', burst: 3, windowSeconds: 30, maxAddresses: 2 });
  const remaining = (verdict: AddressVerdict) => verdict.headers.RateLimit;

  it('admits a burst, then refuses with the seconds until one more is allowed, then refills', () => {
    const buckets = limit();
    expect([0, 1, 2].map(() => remaining(buckets.take('a', 0)))).toEqual([
      '"document";r=2;t=10',
      '"document";r=1;t=20',
      '"document";r=0;t=30',
    ]);
    expect(buckets.take('a', 1_000)).toEqual({
      admitted: false,
      retryAfterSeconds: 9,
      headers: { 'RateLimit-Policy': '"document";q=3;w=30', RateLimit: '"document";r=0;t=9' },
    });
    expect(buckets.take('a', 10_000).admitted).toBe(true);
    expect(buckets.take('b', 10_000).admitted, 'another address has its own bucket').toBe(true);
  });

  it('remembers a bounded number of addresses, forgetting the least recently seen', () => {
    const buckets = limit();
    for (let i = 0; i < 3; i++) buckets.take('a', 0);
    buckets.take('b', 0);
    buckets.take('c', 0);
    expect(buckets.take('a', 0).admitted, 'a was forgotten: a full bucket again').toBe(true);
  });

  it('answers 429 rate_limited with Retry-After and the RateLimit headers past it, as documented', async () => {
    const api = await startTestApi();
    try {
      let response: Awaited<ReturnType<TestApi['request']>>;
      let sent = 0;
      do {
        response = await api.request('GET', '/v1/openapi.json', { headers: {} });
        sent++;
      } while (response.status === 200 && sent < 100);
      expect(response.status).toBe(429);
      expect(response.body.error.code).toBe('rate_limited');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(response.headers.get('ratelimit')).toMatch(/^"document";r=0;t=\d+$/);
      expect(document.paths['/v1/openapi.json']?.get?.responses['429']?.headers).toHaveProperty(
        'Retry-After',
      );
    } finally {
      await api.close();
    }
  });
});

describe('the contract helper (test/support/contract.ts)', () => {
  const decision = {
    decisionType: 'APPROVE/DECLINE',
    decision: 'APPROVE',
    subDecision: 'default_approve',
    abuseScore: 3,
  };
  const order = {
    providerOrderID: 'o-1',
    serviceOrderID: 'ord_1',
    cartLevelDecisions: [
      { providerCartID: 'c-1', serviceCartID: 'cart_1', decisions: [{ ...decision, decisionReason: 'ok' }] },
    ],
  };

  it('accepts a body of the documented shape', () => {
    expect(checkResponse('POST', '/v1/order', 200, order).problems).toEqual([]);
  });

  it('fails on a deliberate mismatch: wrong field casing, wrong decision field, an unknown code, an undocumented status', () => {
    const { providerOrderID, ...rest } = order;
    expect(
      checkResponse('POST', '/v1/order', 200, { ...rest, providerOrderId: providerOrderID }).problems,
    ).not.toEqual([]);
    const withReason = {
      ...order,
      cartLevelDecisions: [{ ...order.cartLevelDecisions[0], decisions: [{ ...decision, reason: 'ok' }] }],
    };
    expect(checkResponse('POST', '/v1/order', 200, withReason).problems).not.toEqual([]);
    const envelope = (code: string) => ({ error: { code, message: 'm', requestId: 'r' } });
    expect(checkResponse('POST', '/v1/order', 409, envelope('duplicate_order')).problems).toEqual([]);
    expect(checkResponse('POST', '/v1/order', 409, envelope('duplicate_return')).problems).not.toEqual([]);
    expect(checkResponse('POST', '/v1/order', 418, envelope('teapot')).problems).not.toEqual([]);
    expect(checkResponse('GET', '/v1/nowhere', 404, { message: 'no envelope' }).problems).not.toEqual([]);
    const requestIdOnly = new Headers({ 'X-Request-Id': 'r' });
    expect(
      checkResponse('POST', '/v1/order', 409, envelope('duplicate_order'), new Headers()).problems,
    ).toEqual(['no X-Request-Id header']);
    expect(
      checkResponse('POST', '/v1/order', 503, envelope('service_unavailable'), requestIdOnly).problems,
    ).toEqual(['no Retry-After header on a 503']);
    expect(() =>
      assertMatchesContract('POST', '/v1/evaluate/signup', 200, { providerSignupId: 'x' }),
    ).toThrow(/does not match openapi\.json/);
  });
});
