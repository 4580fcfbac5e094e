import { describe, expect, it } from 'vitest';
import { withTestApi } from './support/api.ts';
import { disputeEntry } from './support/commerce.ts';
import { countedRequest } from './support/endpoint-fixtures.ts';

/**
 * docs/decisions.md: the same key and the same body return the original response with
 * `Idempotent-Replayed: true`, and nothing is counted twice. Dispositions are keyed on (return,
 * item), disputes on disputeId: a request whose every entry is already recorded as sent is a replay.
 */
const suite = withTestApi();

describe.each(['disposition', 'dispute'] as const)('%s replays (issue 17.3)', (endpoint) => {
  it('an identical re-send answers the original response with Idempotent-Replayed: true, counted once', async () => {
    const request = await countedRequest(endpoint, suite.api, suite.apiKey, suite.merchantId);
    const first = await suite.api.post(request.path, request.body, { apiKey: suite.apiKey });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same body, keys in another order: compared canonically.
    const reordered = JSON.parse(JSON.stringify(request.body), (_key, value) =>
      value && typeof value === 'object' && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).reverse())
        : value,
    );
    for (const body of [request.body, reordered]) {
      const again = await suite.api.post(request.path, body, { apiKey: suite.apiKey });
      expect(again.status, again.text).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
    }
    expect(await request.probe()).toBe(1);
  });

  it('30 identical concurrent requests: one fresh answer, 29 replays, counted once', async () => {
    const request = await countedRequest(endpoint, suite.api, suite.apiKey, suite.merchantId);
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => suite.api.post(request.path, request.body, { apiKey: suite.apiKey })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    const fresh = answers.filter((a) => a.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(29);
    for (const answer of answers) expect(answer.body).toEqual(fresh[0]!.body);
    expect(await request.probe()).toBe(1);
  });
});

describe('what is not a replay', () => {
  it('a dispute request adding one new entry to recorded ones is fresh', async () => {
    const request = await countedRequest('dispute', suite.api, suite.apiKey, suite.merchantId);
    expect((await suite.api.post(request.path, request.body, { apiKey: suite.apiKey })).status).toBe(200);
    const body = { dispute: [...(request.body.dispute as object[]), disputeEntry()] };
    const more = await suite.api.post(request.path, body, { apiKey: suite.apiKey });
    expect(more.status).toBe(200);
    expect(more.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a disposition re-sent with another verdict is fresh and moves the counter back', async () => {
    const request = await countedRequest('disposition', suite.api, suite.apiKey, suite.merchantId);
    expect((await suite.api.post(request.path, request.body, { apiKey: suite.apiKey })).status).toBe(200);
    const [item] = request.body.itemDispositions as Record<string, string>[];
    const body = {
      itemDispositions: [{ ...item, returnedItemCondition: 'NEW', dispositionOutcome: 'RESTOCK' }],
    };
    const changed = await suite.api.post(request.path, body, { apiKey: suite.apiKey });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('idempotent-replayed')).toBeNull();
    expect(await request.probe()).toBe(0);
  });
});
