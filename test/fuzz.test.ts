import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// A table of this suite's own: whole-table snapshots stay small and no other suite writes meanwhile.
vi.hoisted(() => {
  process.env.TABLE_NAME = `fuzz-${Date.now().toString(36)}`;
});

const { default: fc } = await import('fast-check');
const { ERROR_CATALOG } = await import('../shared/errors.ts');
const { updateMerchant } = await import('../shared/store/merchants.ts');
const { newMerchant, startTestApi } = await import('./support/api.ts');
const { prepareFixtures } = await import('./support/endpoint-fixtures.ts');
const { decodesAsPath, fuzzCase, headerPlan, hostileValueCase, toRequest } = await import(
  './support/request-arbitraries.ts'
);
const { changedKeys, createOwnTable, dropOwnTable, tableSnapshot } = await import(
  './support/table-snapshot.ts'
);
const { watchWrites } = await import('./support/write-log.ts');

type Fixture = Awaited<ReturnType<typeof prepareFixtures>>[number];
type FuzzCase = import('./support/request-arbitraries.ts').FuzzCase;
type ApiResponse = import('./support/api.ts').ApiResponse;

/** Runs per property; `FUZZ_RUNS` raises it locally. `npm run fuzz` is the long run. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
/** Codes a request can earn by itself: the catalog (shared/errors.ts) without server failures (5xx). */
const CATALOG = new Set(
  Object.entries(ERROR_CATALOG).flatMap(([code, { status }]) => (status < 500 ? [code] : [])),
);

let api: Awaited<ReturnType<typeof startTestApi>>;
let apiKey: string;
let fixtures: Fixture[];
/** The table as the last rejected request must have left it; undefined once an accepted one wrote. */
let snapshot: Map<string, string> | undefined;

beforeAll(async () => {
  await createOwnTable();
  api = await startTestApi();
  const merchant = await newMerchant({ accountUpdatesEnabled: true });
  // Far above what the suite sends, so no answer is a 429 and every request reaches its endpoint.
  await updateMerchant(merchant.merchantId, { rateLimit: { perSecond: 100_000, burst: 200_000 } });
  apiKey = merchant.apiKey;
  fixtures = await prepareFixtures(api, apiKey);
});
afterAll(async () => {
  await api.close();
  await dropOwnTable();
});

/**
 * The properties every answer must have, whatever was sent: never a 5xx; always `X-Request-Id`;
 * an error is the envelope with a catalog code and `error.requestId` equal to the header; a
 * rejected request sends no write and leaves the table as it was; no prototype is polluted.
 */
async function checkCase(fixture: Fixture, fuzz: FuzzCase): Promise<ApiResponse> {
  const request = toRequest(fuzz, fixture, apiKey);
  snapshot ??= await tableSnapshot();
  const writes = watchWrites();
  const response = await api.request(request.method, request.path, {
    headers: request.headers,
    rawBody: request.rawBody,
  });
  const label = `${response.status} ${response.text.slice(0, 300)}`;
  expect(response.status, label).toBeLessThan(500);
  const requestId = response.headers.get('x-request-id');
  expect(requestId, label).toMatch(/^[0-9a-f-]{36}$/);
  expect(response.headers.get('content-type'), label).toContain('application/json');
  expect(Object.keys(Object.prototype), 'Object.prototype').toEqual([]);
  expect(({} as Record<string, unknown>).polluted, 'Object.prototype').toBeUndefined();
  if (response.status < 400) {
    snapshot = undefined;
    return response;
  }
  expect(CATALOG.has(response.body?.error?.code), label).toBe(true);
  expect(typeof response.body.error.message, label).toBe('string');
  expect(response.body.error.requestId, label).toBe(requestId);
  expect(writes(), label).toEqual([]);
  expect(changedKeys(snapshot, await tableSnapshot()), label).toEqual([]);
  return response;
}

const fixtureOf = (endpoint: string) => fixtures.find((f) => f.endpoint === endpoint)!;
const params = { numRuns: RUNS, endOnFailure: true };

describe.each(['order', 'return', 'disposition', 'dispute', 'signup', 'login', 'account'])(
  'hostile input on %s (property-based, through the HTTP adapter)',
  (endpoint) => {
    it('arbitrary JSON, mutated valid payloads and bad headers: never a 5xx, always the envelope, rejected = unchanged', async () => {
      await fc.assert(
        fc.asyncProperty(fuzzCase, async (fuzz) => {
          await checkCase(fixtureOf(endpoint), fuzz);
        }),
        { ...params, numRuns: RUNS * 2 },
      );
    });

    it('huge numeric strings, lone surrogates, malformed path ids: never a 5xx; surrogates 422, bad path ids 400', async () => {
      await fc.assert(
        fc.asyncProperty(hostileValueCase, async (fuzz) => {
          const response = await checkCase(fixtureOf(endpoint), fuzz);
          const label = `${response.status} ${response.text.slice(0, 300)}`;
          if (fuzz.kind === 'mutated' && fuzz.mutations[0]?.op === 'loneSurrogate') {
            expect(response.status, label).toBe(422);
            expect(response.body.error.code, label).toBe('unprocessable_entity');
          }
          if (fuzz.kind === 'bad-path' && !decodesAsPath(fuzz.segment)) {
            const hasPathId = endpoint === 'dispute' || endpoint === 'disposition';
            expect(response.body.error.code, label).toBe(hasPathId ? 'invalid_request' : 'not_found');
          }
        }),
        params,
      );
    });

    it('a valid body under bad headers: never a 5xx; refused when the key is bad', async () => {
      await fc.assert(
        fc.asyncProperty(headerPlan, async (headers) => {
          await checkCase(fixtureOf(endpoint), { kind: 'bad-headers', headers });
        }),
        params,
      );
    });
  },
);
