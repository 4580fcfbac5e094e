import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountBody, accountWithDevice, decisionOf, loginBody } from './support/account-fixtures.ts';
import { expectError, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { uid } from './support/fixtures.ts';
import { measureRoundTrips } from './support/round-trips.ts';

let api: TestApi;
let apiKey: string;

beforeAll(async () => {
  api = await startTestApi();
  apiKey = (await newMerchant({ accountUpdatesEnabled: true })).apiKey;
});
afterAll(() => api.close());

const update = (body: unknown, key = apiKey) => api.post('/v1/evaluate/account', body, { apiKey: key });
const login = (body: unknown, key: string) => api.post('/v1/evaluate/login', body, { apiKey: key });

const SHA256_HEX = randomBytes(32).toString('hex');
const SHA256_BASE64 = randomBytes(32).toString('base64');
const SHA512_BASE64URL = randomBytes(64).toString('base64url');

describe('POST /v1/evaluate/account', () => {
  it('is off until enabled for the merchant: 403 endpoint_not_enabled (before any body check)', async () => {
    const { apiKey: disabled } = await newMerchant({ accountUpdatesEnabled: false });
    expectError(await update(accountBody(), disabled), 403, 'endpoint_not_enabled');
    expectError(await update({ changeType: 'NOPE' }, disabled), 403, 'endpoint_not_enabled');
  });

  it('answers the 2.8 shape with decisionType APPROVE/DECLINE/REVIEW; a clean change is APPROVE', async () => {
    const { key, customerId, device } = await accountWithDevice(api, { accountUpdatesEnabled: true });
    const response = await update(
      accountBody({
        providerCustomerId: customerId,
        device,
        changeType: 'EMAIL_CHANGE',
        newValue: 'new@example.com',
      }),
      key,
    );
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual([
      'providerAccountEventId',
      'serviceAccountEventId',
      'Decisions',
    ]);
    // No event id in the request: providerAccountEventId echoes providerCustomerId, as providerLoginID does.
    expect(response.body.providerAccountEventId).toBe(customerId);
    expect(response.body.serviceAccountEventId).toMatch(/^acct_[0-9a-f]{32}$/);
    expect(response.body.Decisions).toEqual([{ decisions: [expect.any(Object)] }]);
    const decision = decisionOf(response.body);
    expect(Object.keys(decision).sort()).toEqual([
      'abuseScore',
      'decision',
      'decisionReason',
      'decisionType',
      'subDecision',
    ]);
    expect(decision).toMatchObject({
      decisionType: 'APPROVE/DECLINE/REVIEW',
      decision: 'APPROVE',
      subDecision: 'default_approve',
    });
    expect(decision.abuseScore).toBeLessThan(10);
  });

  it('accepts a PASSWORD_CHANGE with redacted, hex or base64 digests', async () => {
    for (const [previousValue, newValue] of [
      ['redacted', 'redacted'],
      [SHA256_HEX, SHA256_BASE64],
      [undefined, SHA512_BASE64URL],
    ]) {
      const response = await update(
        accountBody({
          changeType: 'PASSWORD_CHANGE',
          ...(previousValue ? { previousValue } : {}),
          ...(newValue ? { newValue } : {}),
        }),
      );
      expect(response.status).toBe(200);
      expect(decisionOf(response.body).decision).toBe('APPROVE');
    }
  });

  it('uses at most 3 sequential DynamoDB round trips on the warm path (measured: 2; the rate-limit token rides with the read)', async () => {
    // A fresh merchant: its key is fetched by this warm-up and then cached (4 s in tests).
    const { apiKey: key } = await newMerchant({ accountUpdatesEnabled: true });
    await update(accountBody(), key);
    const { response, report } = await measureRoundTrips(() => update(accountBody(), key));
    expect(response.status).toBe(200);
    expect(report).toEqual({
      own: ['BatchGetItemCommand', 'TransactWriteItemsCommand'],
      rateLimitTokens: 1,
      sequential: 2,
    });
  });
});

describe('account scenarios', () => {
  it('MFA_DISABLE right after a new-device login that followed failures -> REVIEW or DECLINE', async () => {
    const { key, customerId } = await accountWithDevice(api, { accountUpdatesEnabled: true });
    const attacker = uid('attacker-device');
    for (let i = 0; i < 5; i++) {
      await login(loginBody({ providerCustomerId: customerId, device: attacker, status: '$failure' }), key);
    }
    await login(loginBody({ providerCustomerId: customerId, device: attacker }), key);
    const decision = decisionOf(
      (
        await update(
          accountBody({ providerCustomerId: customerId, device: attacker, changeType: 'MFA_DISABLE' }),
          key,
        )
      ).body,
    );
    expect(['REVIEW', 'DECLINE']).toContain(decision.decision);
    expect(decision.decisionReason).toContain('of a login from a new device');
  });

  it('the owner’s own MFA_DISABLE or PAYOUT_ADD after a clean login is APPROVE (no false declines)', async () => {
    const { key, customerId, device } = await accountWithDevice(api, { accountUpdatesEnabled: true });
    // Signed in a few minutes ago, as a person does before going to the settings page.
    const signedIn = Date.now() - 5 * 60_000;
    await login(loginBody({ providerCustomerId: customerId, device, timestamp: signedIn }), key);
    for (const [i, changeType] of ['MFA_DISABLE', 'PAYOUT_ADD'].entries()) {
      const timestamp = signedIn + (i + 1) * 60_000;
      const decision = decisionOf(
        (await update(accountBody({ providerCustomerId: customerId, device, changeType, timestamp }), key))
          .body,
      );
      expect(decision.decision).toBe('APPROVE');
    }
  });

  it('several risky changes within an hour: the later ones go to REVIEW, into the review queue', async () => {
    const { key, merchantId, customerId, device } = await accountWithDevice(api, {
      accountUpdatesEnabled: true,
    });
    // A few minutes apart, as a person (or a patient attacker) makes them.
    const minutesAgo = (minutes: number) => Date.now() - minutes * 60_000;
    const decisions = [];
    for (const [i, changeType] of ['EMAIL_CHANGE', 'PHONE_CHANGE', 'MFA_DISABLE'].entries()) {
      const timestamp = minutesAgo(40 - 10 * i);
      decisions.push(
        decisionOf(
          (await update(accountBody({ providerCustomerId: customerId, device, changeType, timestamp }), key))
            .body,
        ),
      );
    }
    const { response: fourth, report } = await measureRoundTrips(() =>
      update(
        accountBody({
          providerCustomerId: customerId,
          device,
          changeType: 'PAYOUT_CHANGE',
          timestamp: minutesAgo(10),
        }),
        key,
      ),
    );
    // The review item rides in the event's own transaction: still two round trips.
    expect(report).toEqual({
      own: ['BatchGetItemCommand', 'TransactWriteItemsCommand'],
      rateLimitTokens: 1,
      sequential: 2,
    });
    decisions.push(decisionOf(fourth.body));
    // Reviewed from the third (score 41): a review (5) is cheaper than approving a 200 account or
    // declining a good customer (40) from 3 % on, and the default guard reviews from 30.
    expect(decisions.map((d) => d.decision)).toEqual(['APPROVE', 'APPROVE', 'REVIEW', 'REVIEW']);
    expect(decisions[2].abuseScore).toBeGreaterThanOrEqual(30);
    expect(decisions[3]).toMatchObject({ subDecision: 'elevated_abuse_score' });
    expect(decisions[3].decisionReason).toContain('3 other high-risk changes in the last hour');

    const { listReviews } = await import('../shared/store/reviews.ts');
    const { reviews } = await listReviews(merchantId, 'open', 10);
    expect(reviews.map((r) => r.eventType)).toEqual(['account', 'account']);
    expect(reviews[0]?.decisions[0]).toMatchObject({
      decision: 'REVIEW',
      abuseScore: decisions[3].abuseScore,
    });
  });

  it('a device linked to other accounts’ abuse raises the score of a change on another account', async () => {
    const { key, customerId, device } = await accountWithDevice(api, { accountUpdatesEnabled: true });
    const stuffing = uid('stuffing-device');
    for (let i = 0; i < 20; i++) {
      await login(
        loginBody({ providerCustomerId: uid('victim'), device: stuffing, status: '$failure' }),
        key,
      );
    }
    const fromHome = decisionOf(
      (await update(accountBody({ providerCustomerId: customerId, device }), key)).body,
    );
    const fromStuffing = decisionOf(
      (await update(accountBody({ providerCustomerId: customerId, device: stuffing }), key)).body,
    );
    expect(fromStuffing.abuseScore).toBeGreaterThan(fromHome.abuseScore);
    expect(fromStuffing.decisionReason).toContain('device linked to other accounts with');
  });
});

describe('account validation', () => {
  const cases: [string, (b: ReturnType<typeof accountBody>) => unknown, number, string, string][] = [
    [
      'changeType outside the enum',
      (b) => ({ ...b, changeType: 'USERNAME_CHANGE' }),
      422,
      'unprocessable_entity',
      'changeType',
    ],
    ['missing changeType', ({ changeType: _, ...b }) => b, 400, 'invalid_request', 'changeType'],
    [
      'missing providerCustomerId',
      ({ providerCustomerId: _, ...b }) => b,
      400,
      'invalid_request',
      'providerCustomerId',
    ],
    ['missing timestamp', ({ timestamp: _, ...b }) => b, 400, 'invalid_request', 'timestamp'],
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
    ['newValue of the wrong type', (b) => ({ ...b, newValue: 42 }), 400, 'invalid_request', 'newValue'],
    ['unknown field', (b) => ({ ...b, password: 'x' }), 422, 'unknown_field', 'password'],
  ];
  for (const [name, mutate, status, code, field] of cases) {
    it(`${name} -> ${status} ${code}`, async () => {
      expectError(await update(mutate(accountBody())), status, code, field);
    });
  }

  it('a short hex or base64 value is not a hash: 422', async () => {
    for (const value of ['deadbeef', randomBytes(16).toString('hex'), randomBytes(16).toString('base64')]) {
      expectError(
        await update(accountBody({ changeType: 'PASSWORD_CHANGE', newValue: value })),
        422,
        'unprocessable_entity',
        'newValue',
      );
    }
  });

  it('no API key -> 401 unauthenticated', async () => {
    expectError(await api.post('/v1/evaluate/account', accountBody()), 401, 'unauthenticated');
  });
});
