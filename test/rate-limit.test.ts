import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RateLimit } from '../shared/config.ts';
import { updateMerchant } from '../shared/store/merchants.ts';
import { getOrder } from '../shared/store/orders.ts';
import { leaseSize, takeToken } from '../shared/store/rate-limit-buckets.ts';
import { admin } from './support/admin.ts';
import { type ApiResponse, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';
import { countRoundTrips } from './support/round-trips.ts';

const run = promisify(execFile);
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** A merchant with its own limit, set before its key is first used (and cached). */
async function limitedMerchant(rateLimit: RateLimit) {
  const merchant = await newMerchant();
  await updateMerchant(merchant.merchantId, { rateLimit });
  return merchant;
}

const order = (apiKey: string, body = orderBody()) => api.post('/v1/order', body, { apiKey });
const statuses = (responses: ApiResponse[]) => responses.map((r) => r.status).sort();

describe('per-merchant rate limit (docs/decisions.md)', () => {
  it('over the limit: 429 rate_limited with Retry-After and RateLimit headers; refused requests record nothing', async () => {
    // 3 at once, then one every 100 s: the test runs inside the first refill, however slow the machine.
    const { apiKey, merchantId } = await limitedMerchant({ perSecond: 0.01, burst: 3 });
    const bodies = Array.from({ length: 5 }, () => orderBody());
    const started = Date.now();
    const responses = await Promise.all(bodies.map((body) => order(apiKey, body)));
    const elapsedSeconds = (Date.now() - started) / 1000;
    expect(statuses(responses)).toEqual([200, 200, 200, 429, 429]);

    for (const [i, response] of responses.entries()) {
      // draft-ietf-httpapi-ratelimit-headers: 3 requests per the 300 s an empty bucket takes to refill.
      expect(response.headers.get('ratelimit-policy')).toBe('"merchant";q=3;w=300');
      const recorded = await getOrder(merchantId, bodies[i]!.providerOrderId);
      if (response.status === 200) {
        expect(recorded).toBeDefined();
        continue;
      }
      expect(recorded).toBeUndefined();
      expect(response.body.error).toMatchObject({
        code: 'rate_limited',
        requestId: response.headers.get('x-request-id'),
      });
      const retryAfter = Number(response.headers.get('retry-after'));
      // The next token is due 100 s after the first one was taken, within this burst.
      expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(100 - elapsedSeconds));
      expect(retryAfter).toBeLessThanOrEqual(100);
      expect(response.headers.get('ratelimit')).toBe(`"merchant";r=0;t=${retryAfter}`);
    }
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => /;r=(\d+);/.exec(r.headers.get('ratelimit') ?? '')?.[1])
      .sort();
    expect(remaining).toEqual(['0', '1', '2']);
  });

  it('tells each admitted request what is left after it, whichever read the clock first', async () => {
    // Concurrent requests read the clock before their writes and land in either order: here the
    // one that read it later wrote first.
    const rateLimit = { perSecond: 0.1, burst: 3 };
    const { merchantId } = await newMerchant();
    // Readings a second old: remaining is told as of the answer, and an answer within 5 ms of the
    // reading came before the first request's (later-stamped) token was due, so the count depended
    // on how fast DynamoDB Local answered.
    const clock = Date.now() - 1_000;
    const first = await takeToken(merchantId, rateLimit, clock + 5);
    const second = await takeToken(merchantId, rateLimit, clock);
    expect([first, second]).toMatchObject([
      { admitted: true, remaining: 2 },
      { admitted: true, remaining: 1 },
    ]);
    // A write answered long after its clock reading finds the bucket refilled, and never fuller than full.
    const { merchantId: slow } = await newMerchant();
    expect(await takeToken(slow, rateLimit, clock - 100_000)).toMatchObject({
      remaining: 3,
      resetSeconds: 0,
    });
  });

  it('admits again once Retry-After has passed', async () => {
    // One token every 2 s: the third request, sent well within 2 s, finds none.
    const { apiKey } = await limitedMerchant({ perSecond: 0.5, burst: 2 });
    expect((await order(apiKey)).status).toBe(200);
    expect((await order(apiKey)).status).toBe(200);
    const refused = await order(apiKey);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect([1, 2]).toContain(retryAfter);
    await new Promise((resolveWait) => setTimeout(resolveWait, retryAfter * 1000));
    expect((await order(apiKey)).status).toBe(200);
  });

  it('counts every authenticated request, invalid ones too', async () => {
    const { apiKey, merchantId } = await limitedMerchant({ perSecond: 0.1, burst: 2 });
    const invalid = [
      await api.post('/v1/order', {}, { apiKey }),
      await api.post('/v1/order', {}, { apiKey }),
    ];
    expect(invalid.map((r) => r.status)).toEqual([400, 400]);
    // One token left, then none; the bucket is full again 10 s after the last one taken.
    expect(invalid.map((r) => r.headers.get('ratelimit'))).toEqual([
      '"merchant";r=1;t=10',
      '"merchant";r=0;t=20',
    ]);
    const body = orderBody();
    expect((await order(apiKey, body)).status).toBe(429);
    expect(await getOrder(merchantId, body.providerOrderId)).toBeUndefined();
  });

  it('is per merchant: one merchant over its limit does not limit another', async () => {
    const { apiKey } = await limitedMerchant({ perSecond: 0.1, burst: 1 });
    expect((await order(apiKey)).status).toBe(200);
    expect((await order(apiKey)).status).toBe(429);
    const other = await newMerchant();
    expect((await order(other.apiKey)).status).toBe(200);
  });

  it('costs one UpdateItem per admitted request; a refusal this instance can prove costs none', async () => {
    const { apiKey } = await limitedMerchant({ perSecond: 0.1, burst: 1 });
    const admitted = countRoundTrips();
    expect((await order(apiKey)).status).toBe(200);
    expect(admitted.commands().filter((c) => c === 'UpdateItemCommand')).toHaveLength(1);
    const refused = countRoundTrips();
    expect((await order(apiKey)).status).toBe(429);
    expect(refused.commands()).not.toContain('UpdateItemCommand');
    expect(refused.commands()).not.toContain('TransactWriteItemsCommand');
  });

  it('is shared by all instances: a process with fresh memory finds the bucket spent', async () => {
    const rateLimit = { perSecond: 0.1, burst: 3 };
    const { apiKey, merchantId } = await limitedMerchant(rateLimit);
    for (let i = 0; i < 3; i++) expect((await order(apiKey)).status).toBe(200);
    // A second "Lambda instance": its own process and memory, the same table.
    const bucket = pathToFileURL(resolve(import.meta.dirname, '../shared/store/rate-limit-buckets.ts')).href;
    const script = `const { takeToken } = await import(${JSON.stringify(bucket)});
      console.log(JSON.stringify(await takeToken(${JSON.stringify(merchantId)}, ${JSON.stringify(rateLimit)})));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
      env: process.env,
    });
    expect(JSON.parse(stdout)).toMatchObject({ admitted: false });
  });
});

describe('a large merchant: leases of tokens', () => {
  // Both instances read one frozen clock, so nothing refills: the burst is all there is to share.
  it('two instances against one table admit no more than the bucket holds', async () => {
    const rateLimit = { perSecond: 2_000, burst: 600 };
    const lease = leaseSize(rateLimit);
    expect(lease).toBe(20);
    const { merchantId } = await newMerchant();
    const now = Date.now();
    const bucket = pathToFileURL(resolve(import.meta.dirname, '../shared/store/rate-limit-buckets.ts')).href;
    const calls = 400;
    const script = `const { takeToken } = await import(${JSON.stringify(bucket)});
      let admitted = 0;
      for (let i = 0; i < ${calls}; i++) if ((await takeToken(${JSON.stringify(merchantId)}, ${JSON.stringify(rateLimit)}, ${now})).admitted) admitted++;
      console.log(admitted);`;
    const trips = countRoundTrips();
    // This process is one instance, a child process with its own memory the other.
    const [other, mine] = await Promise.all([
      run(process.execPath, ['--input-type=module', '-e', script], { env: process.env }),
      (async () => {
        let admitted = 0;
        for (let i = 0; i < calls; i++)
          if ((await takeToken(merchantId, rateLimit, now)).admitted) admitted++;
        return admitted;
      })(),
    ]);
    const admitted = mine + Number(other.stdout.trim());
    // Never more than the bucket; at most one unused lease per instance short of it.
    expect(admitted).toBeLessThanOrEqual(rateLimit.burst);
    expect(admitted).toBeGreaterThanOrEqual(rateLimit.burst - 2 * lease);
    expect(trips.commands().filter((c) => c === 'UpdateItemCommand').length).toBeLessThan(mine);
  });

  it('takes one bucket write per lease while the bucket has room; limits up to 1,000/s take one per request', async () => {
    const rateLimit = { perSecond: 2_000, burst: 4_000 };
    const { merchantId } = await newMerchant();
    const now = Date.now();
    const trips = countRoundTrips();
    for (let i = 0; i < 200; i++) expect((await takeToken(merchantId, rateLimit, now)).admitted).toBe(true);
    const writes = trips.commands().filter((c) => c === 'UpdateItemCommand').length;
    // 200 requests, leases of 20: 10 writes (a guess of the bucket's shape corrected costs one more).
    expect(writes).toBeGreaterThanOrEqual(10);
    expect(writes).toBeLessThanOrEqual(12);
    expect(leaseSize({ perSecond: 1_000, burst: 2_000 })).toBe(1);
  });
});

describe('admin merchant update --rate-limit N --burst M', () => {
  it('sets the merchant’s own limit, which its next requests advertise', async () => {
    const { merchantId, apiKey } = JSON.parse(
      (await admin('merchant', 'create', '--name', 'Limited')).stdout,
    );
    const updated = await admin(
      'merchant',
      'update',
      '--merchant',
      merchantId,
      '--rate-limit',
      '5',
      '--burst',
      '20',
    );
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ merchantId, rateLimit: { perSecond: 5, burst: 20 } });
    expect((await order(apiKey)).headers.get('ratelimit-policy')).toBe('"merchant";q=20;w=4');
    const defaulted = await admin('merchant', 'update', '--merchant', merchantId, '--rate-limit', '7');
    expect(JSON.parse(defaulted.stdout).rateLimit).toEqual({ perSecond: 7, burst: 14 });
  });

  it('refuses a burst without a rate, a burst below the rate, and a rate that is not a positive number', async () => {
    for (const flags of [
      ['--burst', '5'],
      ['--rate-limit', '5', '--burst', '2'],
      ['--rate-limit', '0'],
    ]) {
      const result = await admin('merchant', 'update', '--merchant', 'mer_x', ...flags);
      expect(result.code, flags.join(' ')).toBe(2);
    }
  });
});
