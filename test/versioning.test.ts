import { describe, expect, it } from 'vitest';
import { lambdaContext } from '../local/api-gateway-event.ts';
import type { RouteDeprecation } from '../shared/contract/endpoints.ts';
import { endpointHandler } from '../shared/http/http-handler.ts';
import type { RouteDefinition } from '../shared/http/route.ts';
import { ROUTES } from '../shared/http/routes.ts';
import { loginRequestSchema } from '../shared/schemas/login.ts';
import { evaluateLogin } from '../shared/use-cases/evaluate-login.ts';
import { loginBody } from './support/account-fixtures.ts';
import { newMerchant } from './support/api.ts';
import { jsonPostEvent } from './support/lambda-events.ts';
import { countRoundTrips } from './support/round-trips.ts';

/**
 * The deprecation mechanism of docs/decisions.md (Versioning) on a test-only route: v1 is current and
 * nothing in ROUTES is deprecated, so the test builds a handler for a `/v0` route of its own and
 * invokes it with the API Gateway event the local adapter would build.
 */
const DAY_MS = 86_400_000;
const GUIDE = 'https://docs.example.com/migrations/v0-to-v1-login';

function deprecatedRoute(deprecation: RouteDeprecation): RouteDefinition {
  return {
    endpoint: 'login',
    method: 'POST',
    path: '/v0/evaluate/login',
    functionName: 'login',
    handlerFile: 'functions/login.ts',
    deprecation,
  };
}

async function call(route: RouteDefinition, body: unknown, apiKey?: string) {
  const handler = endpointHandler('login', loginRequestSchema, evaluateLogin, { routes: [route] });
  const response = await handler(jsonPostEvent(route.path, body, apiKey), lambdaContext('versioning-test'));
  return { ...response, json: JSON.parse(response.body) };
}

describe('route deprecation (docs/decisions.md, Versioning)', () => {
  const deprecatedAt = new Date(Date.now() - 30 * DAY_MS);
  const sunsetAt = new Date(Date.now() + 335 * DAY_MS);
  const announced = deprecatedRoute({
    deprecatedAt: deprecatedAt.toISOString(),
    sunsetAt: sunsetAt.toISOString(),
    successorPath: '/v1/evaluate/login',
    migrationGuideUrl: GUIDE,
  });

  it('before the sunset: answers as usual with Deprecation, Sunset and Link headers', async () => {
    const { apiKey } = await newMerchant();
    const response = await call(announced, loginBody(), apiKey);
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      Deprecation: sunsetAt.toUTCString(),
      Sunset: sunsetAt.toUTCString(),
      Link: `</v1/evaluate/login>; rel="successor-version", <${GUIDE}>; rel="deprecation"`,
    });
    expect(response.headers?.Sunset).toMatch(
      /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
    );
  });

  it('errors of a deprecated route carry the headers too', async () => {
    const { apiKey } = await newMerchant();
    const response = await call(announced, { ...loginBody(), extra: 1 }, apiKey);
    expect(response.statusCode).toBe(422);
    expect(response.headers).toMatchObject({
      Deprecation: expect.any(String),
      Sunset: sunsetAt.toUTCString(),
    });
  });

  it('after the sunset: 410 gone naming the successor and the migration guide; the use case never runs', async () => {
    const { apiKey } = await newMerchant();
    const retired = deprecatedRoute({
      deprecatedAt: new Date(Date.now() - 400 * DAY_MS).toISOString(),
      sunsetAt: new Date(Date.now() - DAY_MS).toISOString(),
      successorPath: '/v1/evaluate/login',
      migrationGuideUrl: GUIDE,
    });
    const counter = countRoundTrips();
    const response = await call(retired, loginBody(), apiKey);
    expect(response.statusCode).toBe(410);
    expect(response.json.error).toMatchObject({
      code: 'gone',
      requestId: response.headers?.['X-Request-Id'],
    });
    expect(response.json.error.message).toContain('/v1/evaluate/login');
    expect(response.json.error.message).toContain(GUIDE);
    expect(response.headers).toMatchObject({
      Sunset: expect.any(String),
      Link: expect.stringContaining(GUIDE),
    });
    expect(counter.commands()).not.toContain('BatchGetItemCommand');
    expect(counter.commands()).not.toContain('TransactWriteItemsCommand');
  });

  it('authentication still comes first: no key on a retired route is 401', async () => {
    const retired = deprecatedRoute({
      deprecatedAt: '2020-01-01T00:00:00Z',
      sunsetAt: '2021-01-01T00:00:00Z',
      successorPath: '/v1/evaluate/login',
      migrationGuideUrl: GUIDE,
    });
    expect((await call(retired, loginBody())).statusCode).toBe(401);
  });

  it('a route without a deprecation sends no Deprecation header; v1 is current (nothing deprecated)', async () => {
    const { apiKey } = await newMerchant();
    const current = ROUTES.find((r) => r.endpoint === 'login')!;
    const response = await call(current, loginBody(), apiKey);
    expect(response.statusCode).toBe(200);
    expect(response.headers).not.toHaveProperty('Deprecation');
    expect(ROUTES.filter((r) => r.deprecation)).toEqual([]);
  });

  it('refuses a route whose sunset is not after its deprecation, at handler construction', () => {
    const broken = deprecatedRoute({
      deprecatedAt: '2026-01-01T00:00:00Z',
      sunsetAt: 'soon',
      successorPath: '/v1/evaluate/login',
      migrationGuideUrl: GUIDE,
    });
    expect(() => endpointHandler('login', loginRequestSchema, evaluateLogin, { routes: [broken] })).toThrow(
      /deprecation/,
    );
  });
});
