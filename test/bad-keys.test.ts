import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STAGES } from '../lib/config.ts';
import { LOCAL_STAGE_RATE_LIMIT } from '../local/web-acl.ts';
import { FAILED_AUTHENTICATION_LIMIT } from '../shared/http/web-acl-rules.ts';
import { expectError, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';
import { countRoundTrips } from './support/round-trips.ts';

/**
 * Floods of bad keys (issue 34.4): a malformed credential is refused before anything is read, an
 * unknown key is read once per instance and then answered from memory, and the local stand-in of
 * the stage's web ACL refuses an address's requests without a well-formed credential past its limit,
 * leaving that address's good requests and the public document alone.
 */
const wellFormedUnknownKey = () =>
  `pk_test_${randomBytes(60)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, '')
    .slice(0, 40)}`;

describe('bad keys cost at most one read', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it.each([
    ['too short', 'pk_test_abc'],
    ['a character outside base62', `pk_test_${'a'.repeat(39)}!`],
    ['too long', `pk_test_${'a'.repeat(65)}`],
    ['no environment prefix', 'a'.repeat(48)],
  ])('a malformed key (%s) is answered 401 invalid_api_key with no DynamoDB call', async (_, key) => {
    const calls = countRoundTrips();
    const response = await api.post('/v1/order', orderBody(), { apiKey: key });
    expectError(response, 401, 'invalid_api_key');
    expect(calls.commands()).toEqual([]);
  });

  it('a malformed console session cookie is answered 401 with no DynamoDB call', async () => {
    const calls = countRoundTrips();
    const response = await api.request('GET', '/v1/reviews', {
      headers: { Cookie: 'console_session=not-a-token' },
    });
    expectError(response, 401, 'unauthenticated');
    expect(calls.commands()).toEqual([]);
  });

  it('an unknown well-formed key is looked up once, then answered from the instance memory', async () => {
    const key = wellFormedUnknownKey();
    const first = countRoundTrips();
    expectError(await api.post('/v1/order', orderBody(), { apiKey: key }), 401, 'invalid_api_key');
    expect(first.commands()).toEqual(['GetItemCommand']);
    const again = countRoundTrips();
    expectError(await api.post('/v1/order', orderBody(), { apiKey: key }), 401, 'invalid_api_key');
    expect(again.commands()).toEqual([]);
  });

  it('a key issued after other unknown keys were refused works at once', async () => {
    for (let i = 0; i < 3; i++) {
      expectError(
        await api.post('/v1/order', orderBody(), { apiKey: wellFormedUnknownKey() }),
        401,
        'invalid_api_key',
      );
    }
    const { apiKey } = await newMerchant();
    expect((await api.post('/v1/order', orderBody(), { apiKey })).status).toBe(200);
  });
});

describe('the web ACL stand-in in front of the local server', () => {
  let api: TestApi;
  let apiKey: string;
  beforeAll(async () => {
    api = await startTestApi({ webAcl: true });
    ({ apiKey } = await newMerchant());
  });
  afterAll(() => api.close());

  it('counts an address against the sandbox stage it stands for', () => {
    expect(LOCAL_STAGE_RATE_LIMIT).toBe(STAGES.sandbox.apiThrottle.rateLimit);
  });

  it('refuses an address past its limit of requests without a well-formed credential, and nothing else', async () => {
    const { requests, windowSeconds } = FAILED_AUTHENTICATION_LIMIT;
    // The bucket refills one request every window / requests: on a slow machine the burst takes
    // longer than that, and the refills it earned meanwhile are let through too.
    const refillMs = (windowSeconds * 1000) / requests;
    const started = Date.now();
    const answers: number[] = [];
    let blocked: Awaited<ReturnType<typeof api.request>> | undefined;
    for (let i = 0; i < 2 * requests && !blocked; i++) {
      const headers: Record<string, string> = i % 2 === 0 ? {} : { Authorization: 'pk_test_short' };
      const response = await api.request('POST', '/v1/order', { headers, rawBody: '{}' });
      if (response.status === 401) answers.push(response.status);
      else blocked = response;
    }
    const refilled = Math.floor((Date.now() - started) / refillMs);
    expect(answers.length).toBeGreaterThanOrEqual(requests);
    expect(answers.length).toBeLessThanOrEqual(requests + refilled + 1);
    if (!blocked) throw new Error(`never blocked after ${answers.length} requests`);
    expectError(blocked, 429, 'rate_limited');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Well-formed keys, with the optional Bearer and blanks authenticate() accepts, are not counted.
    expect((await api.post('/v1/order', orderBody(), { apiKey })).status).toBe(200);
    expect((await api.post('/v1/order', orderBody(), { apiKey: ` Bearer ${apiKey} ` })).status).toBe(200);
    expectError(
      await api.post('/v1/order', orderBody(), { apiKey: wellFormedUnknownKey() }),
      401,
      'invalid_api_key',
    );
    // A session cookie is the console's credential; the public document needs none.
    expectError(
      await api.request('GET', '/v1/reviews', {
        headers: { Cookie: `console_session=${'a'.repeat(43)}` },
      }),
      401,
      'unauthenticated',
    );
    expect((await api.request('GET', '/v1/openapi.json')).status).toBe(200);
  });
});
