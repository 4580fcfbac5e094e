import { beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../shared/contract/endpoints.ts';
import { expectError, withTestApi } from './support/api.ts';
import { type EndpointFixture, prepareFixtures } from './support/endpoint-fixtures.ts';
import { orderBody } from './support/fixtures.ts';

/**
 * JSON text may escape a lone surrogate (`"\ud800"`), but that is not Unicode: stored, it becomes
 * U+FFFD and different ids become one. Every string of every body, keys included, is refused with
 * 422 naming the field, before anything is read or written.
 */
const suite = withTestApi({ accountUpdatesEnabled: true });
let fixtures: EndpointFixture[];
beforeAll(async () => {
  fixtures = await prepareFixtures(suite.api, suite.apiKey);
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Paths of every string value in a body, in document order. */
function stringPaths(value: Json, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((child, i) => stringPaths(child, [...path, i]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, child]) => stringPaths(child, [...path, key]));
  return [];
}
const fieldOf = (path: (string | number)[]) =>
  path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part),
    '',
  );

describe('lone surrogates (issue 17.2)', () => {
  it('ids differing only in a lone surrogate are refused, not conflated', async () => {
    const stem = `X-${Date.now()}`;
    for (const id of [`${stem}\ud800`, `${stem}\udbff`, `\udc00${stem}`]) {
      const response = await suite.api.post('/v1/order', orderBody({ providerOrderId: id }), {
        apiKey: suite.apiKey,
      });
      expectError(response, 422, 'unprocessable_entity', 'providerOrderId');
    }
    const plain = await suite.api.post('/v1/order', orderBody({ providerOrderId: `${stem}\ufffd` }), {
      apiKey: suite.apiKey,
    });
    expect(plain.status, plain.text).toBe(200);
    expect(plain.headers.get('idempotent-replayed')).toBeNull();
  });

  it.each(ENDPOINTS)(
    '%s: a lone surrogate in any string value is 422 naming that field',
    async (endpoint) => {
      const fixture = fixtures.find((f) => f.endpoint === endpoint)!;
      const paths = stringPaths(fixture.validRequest().body as Json);
      expect(paths.length).toBeGreaterThan(2);
      for (const path of paths) {
        const { path: url, body } = fixture.validRequest();
        let parent = body as Record<string | number, Json>;
        for (const part of path.slice(0, -1)) parent = parent[part] as Record<string | number, Json>;
        parent[path.at(-1)!] = `${parent[path.at(-1)!] as string}\ud83d`;
        expectError(
          await suite.api.post(url, body, { apiKey: suite.apiKey }),
          422,
          'unprocessable_entity',
          fieldOf(path),
        );
      }
    },
  );

  it('a lone surrogate in a key is 422 naming the key', async () => {
    const body: Record<string, unknown> = orderBody();
    body.customData = { ok: 1, 'bad\udfff': 2 };
    expectError(
      await suite.api.post('/v1/order', body, { apiKey: suite.apiKey }),
      422,
      'unprocessable_entity',
      'customData.bad\ufffd',
    );
  });

  it('a well-formed astral character (a surrogate pair) is accepted', async () => {
    const response = await suite.api.post(
      '/v1/order',
      orderBody({ providerOrderId: `pair-${Date.now()}-😀` }),
      { apiKey: suite.apiKey },
    );
    expect(response.status, response.text).toBe(200);
  });

  it('a body that is not UTF-8 is 400, not turned into U+FFFD', async () => {
    const stem = `Y-${Date.now()}`;
    for (const bad of [[0xff], [0xfe], [0xc0, 0xaf], [0xed, 0xa0, 0x80]]) {
      const [before, after] = JSON.stringify(orderBody({ providerOrderId: `${stem}#` })).split('#');
      const bytes = Buffer.concat([Buffer.from(before!), Buffer.from(bad), Buffer.from(after!)]);
      const response = await fetch(`${suite.api.baseUrl}/v1/order`, {
        method: 'POST',
        headers: { Authorization: suite.apiKey, 'Content-Type': 'application/json' },
        body: bytes,
      });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; requestId: string } };
      expect(error.code).toBe('invalid_request');
      expect(error.requestId).toBe(response.headers.get('x-request-id'));
    }
    const plain = await suite.api.post('/v1/order', orderBody({ providerOrderId: `${stem}\ufffd` }), {
      apiKey: suite.apiKey,
    });
    expect(plain.status, plain.text).toBe(200);
  });
});
