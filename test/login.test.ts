import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithDevice, decisionOf, loginBody } from './support/account-fixtures.ts';
import { expectError, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { uid } from './support/fixtures.ts';
import { measureRoundTrips } from './support/round-trips.ts';

let api: TestApi;
let apiKey: string;

beforeAll(async () => {
  api = await startTestApi();
  apiKey = (await newMerchant()).apiKey;
});
afterAll(() => api.close());

const login = (body: unknown, key = apiKey) => api.post('/v1/evaluate/login', body, { apiKey: key });

describe('POST /v1/evaluate/login', () => {
  it('answers the 2.7 shape: providerLoginID (echo of providerCustomerId), serviceLoginID, Decisions[]', async () => {
    const { key, customerId, device } = await accountWithDevice(api);
    const response = await login(loginBody({ providerCustomerId: customerId, device }), key);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['providerLoginID', 'serviceLoginID', 'Decisions']);
    expect(response.body.providerLoginID).toBe(customerId);
    expect(response.body.serviceLoginID).toMatch(/^lgn_[0-9a-f]{32}$/);
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
      decisionType: 'APPROVE/DECLINE',
      decision: 'APPROVE',
      subDecision: 'default_approve',
      decisionReason: 'no abuse signals in the linked history',
    });
    expect(decision.abuseScore).toBeLessThan(10);
  });

  it('treats every attempt as its own event: the same body twice gives two service ids', async () => {
    const body = loginBody();
    const first = await login(body);
    const second = await login(body);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.serviceLoginID).not.toBe(first.body.serviceLoginID);
  });

  it('reads deviceFingerprints inside authMethod as well as at the top level', async () => {
    const { key, customerId, device } = await accountWithDevice(api);
    const known = await login(
      loginBody({ providerCustomerId: customerId, device, deviceInAuthMethod: true }),
      key,
    );
    expect(known.status).toBe(200);
    expect(decisionOf(known.body).decisionReason).not.toContain('device never seen');
    const stranger = await login(
      loginBody({ providerCustomerId: customerId, device: uid('other'), deviceInAuthMethod: true }),
      key,
    );
    expect(decisionOf(stranger.body).decisionReason).toContain(
      'success from a device never seen for this account',
    );
  });

  it('records failures and successes per account and per device', async () => {
    const { key, merchantId, customerId, device } = await accountWithDevice(api);
    await login(loginBody({ providerCustomerId: customerId, device, status: '$failure' }), key);
    await login(loginBody({ providerCustomerId: customerId, device, status: '$failure' }), key);
    await login(loginBody({ providerCustomerId: customerId, device }), key);
    const { identityDigests } = await import('../shared/digests/identity-digests.ts');
    const identity = await identityDigests(merchantId);
    const { batchGetItems, keyString } = await import('../shared/store/batch-get.ts');
    const { identityKey, toSnapshot } = await import('../shared/store/identity-history.ts');
    const refs = [identity('customer', customerId), identity('device', device)];
    const items = await batchGetItems(refs.map((ref) => identityKey(merchantId, ref)));
    for (const ref of refs) {
      const snapshot = toSnapshot(ref, items.get(keyString(identityKey(merchantId, ref))), Date.now());
      expect(snapshot.count('lgF')).toMatchObject({ m15: 2, h1: 2, h24: 2, lifetime: 2 });
      expect(snapshot.count('lgS')).toMatchObject({ m15: 1, h1: 1, h24: 1, lifetime: 1 });
    }
  });

  it('uses at most 3 sequential DynamoDB round trips on the warm path (measured: 2; the rate-limit token rides with the read)', async () => {
    // A fresh merchant: its key is fetched by this warm-up and then cached (4 s in tests).
    const { apiKey: key } = await newMerchant();
    await login(loginBody(), key);
    const { response, report } = await measureRoundTrips(() => login(loginBody(), key));
    expect(response.status).toBe(200);
    expect(report).toEqual({
      own: ['BatchGetItemCommand', 'TransactWriteItemsCommand'],
      rateLimitTokens: 1,
      sequential: 2,
    });
  });
});

describe('login scenarios', () => {
  it('25 failures on one account from one device, then a success: not APPROVE, far above a clean login', async () => {
    const { key, customerId, device } = await accountWithDevice(api);
    const clean = decisionOf((await login(loginBody({ providerCustomerId: customerId, device }), key)).body);
    expect(clean.decision).toBe('APPROVE');

    const attacker = uid('attacker-device');
    const failures = [];
    for (let i = 0; i < 25; i++) {
      failures.push(
        decisionOf(
          (
            await login(
              loginBody({ providerCustomerId: customerId, device: attacker, status: '$failure' }),
              key,
            )
          ).body,
        ),
      );
    }
    // The failures themselves are declined once they pile up (the client rate-limits on DECLINE).
    expect(failures[0].decision).toBe('APPROVE');
    expect(failures[24].decision).toBe('DECLINE');

    const success = decisionOf(
      (await login(loginBody({ providerCustomerId: customerId, device: attacker }), key)).body,
    );
    expect(success.decision).not.toBe('APPROVE');
    expect(success.abuseScore).toBeGreaterThanOrEqual(clean.abuseScore + 60);
    expect(success.decisionReason).toContain('25 failed logins on this account in the last hour');
  });

  it('the owner logging in from a trusted device during an attack on the account stays APPROVE', async () => {
    const { key, customerId, device } = await accountWithDevice(api);
    const attacker = uid('attacker-device');
    for (let i = 0; i < 25; i++) {
      await login(loginBody({ providerCustomerId: customerId, device: attacker, status: '$failure' }), key);
    }
    const owner = decisionOf((await login(loginBody({ providerCustomerId: customerId, device }), key)).body);
    expect(owner.decision).toBe('APPROVE');
  });

  it('the same device trying 20 accounts: its later logins are flagged, other devices are not', async () => {
    const { apiKey: key } = await newMerchant();
    const device = uid('stuffing-device');
    for (let i = 0; i < 20; i++) {
      await login(loginBody({ providerCustomerId: uid('victim'), device, status: '$failure' }), key);
    }
    const laterFailure = decisionOf(
      (await login(loginBody({ providerCustomerId: uid('victim'), device, status: '$failure' }), key)).body,
    );
    const laterSuccess = decisionOf(
      (await login(loginBody({ providerCustomerId: uid('victim'), device }), key)).body,
    );
    expect(laterFailure.decision).not.toBe('APPROVE');
    expect(laterSuccess.decision).not.toBe('APPROVE');
    expect(laterSuccess.decisionReason).toContain('device tried 21 other accounts in the last 24 hours');

    const bystander = decisionOf((await login(loginBody({ providerCustomerId: uid('customer') }), key)).body);
    expect(bystander.decision).toBe('APPROVE');
  });

  it('a success without MFA on an account that always uses it scores higher', async () => {
    const { key, customerId, device } = await accountWithDevice(api);
    for (let i = 0; i < 3; i++)
      await login(loginBody({ providerCustomerId: customerId, device, mfaUsed: true }), key);
    const withMfa = decisionOf(
      (await login(loginBody({ providerCustomerId: customerId, device, mfaUsed: true }), key)).body,
    );
    const withoutMfa = decisionOf(
      (await login(loginBody({ providerCustomerId: customerId, device, mfaUsed: false }), key)).body,
    );
    expect(withMfa.decision).toBe('APPROVE');
    expect(withoutMfa.abuseScore).toBeGreaterThan(withMfa.abuseScore);
    expect(withoutMfa.decisionReason).toContain('MFA not used on an account that usually uses it');
  });

  it('a couple of typos before a success stay APPROVE (no false declines)', async () => {
    const { key, customerId, device } = await accountWithDevice(api);
    for (let i = 0; i < 2; i++) {
      await login(loginBody({ providerCustomerId: customerId, device, status: '$failure' }), key);
    }
    const success = decisionOf(
      (await login(loginBody({ providerCustomerId: customerId, device }), key)).body,
    );
    expect(success.decision).toBe('APPROVE');
  });
});

describe('login validation', () => {
  const cases: [string, (b: ReturnType<typeof loginBody>) => unknown, number, string, string][] = [
    [
      'loginStatus not $success/$failure',
      (b) => ({ ...b, loginStatus: 'success' }),
      422,
      'unprocessable_entity',
      'loginStatus',
    ],
    [
      'loginStatus of the wrong type',
      (b) => ({ ...b, loginStatus: true }),
      422,
      'unprocessable_entity',
      'loginStatus',
    ],
    [
      'authMethod.type outside the enum',
      (b) => ({ ...b, authMethod: { ...b.authMethod, type: 'pin' } }),
      422,
      'unprocessable_entity',
      'authMethod.type',
    ],
    [
      'mfaMethod outside the enum',
      (b) => ({ ...b, authMethod: { ...b.authMethod, mfaUsed: true, mfaMethod: 'carrier_pigeon' } }),
      422,
      'unprocessable_entity',
      'authMethod.mfaMethod',
    ],
    [
      'mfaUsed not a boolean',
      (b) => ({ ...b, authMethod: { ...b.authMethod, mfaUsed: 'yes' } }),
      400,
      'invalid_request',
      'authMethod.mfaUsed',
    ],
    ['missing authMethod', ({ authMethod: _, ...b }) => b, 400, 'invalid_request', 'authMethod'],
    [
      'missing authMethod.type',
      (b) => ({ ...b, authMethod: { mfaUsed: false } }),
      400,
      'invalid_request',
      'authMethod.type',
    ],
    ['missing loginStatus', ({ loginStatus: _, ...b }) => b, 400, 'invalid_request', 'loginStatus'],
    ['missing siteDomain', ({ siteDomain: _, ...b }) => b, 400, 'invalid_request', 'siteDomain'],
    ['unknown field', (b) => ({ ...b, password: 'hunter2' }), 422, 'unknown_field', 'password'],
    [
      'unknown field inside authMethod',
      (b) => ({ ...b, authMethod: { ...b.authMethod, otp: '123456' } }),
      422,
      'unknown_field',
      'authMethod.otp',
    ],
    [
      'malformed verificationPhoneNumber',
      (b) => ({ ...b, verificationPhoneNumber: 'call me' }),
      422,
      'unprocessable_entity',
      'verificationPhoneNumber',
    ],
  ];
  for (const [name, mutate, status, code, field] of cases) {
    it(`${name} -> ${status} ${code}`, async () => {
      expectError(await login(mutate(loginBody())), status, code, field);
    });
  }

  it('no API key -> 401 unauthenticated', async () => {
    expectError(await api.post('/v1/evaluate/login', loginBody()), 401, 'unauthenticated');
  });
});
