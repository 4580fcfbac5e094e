import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { identityDigests } from '../shared/digests/identity-digests.ts';
import { normalizeEmail } from '../shared/identity/identities.ts';
import { METRIC } from '../shared/identity/metrics.ts';
import { decisionsOfItem } from '../shared/store/decided-events.ts';
import { loadSnapshots } from '../shared/store/identity-history.ts';
import { keys } from '../shared/store/keys.ts';
import type { OrderItem } from '../shared/store/orders.ts';
import { getRecord } from '../shared/store/record-once.ts';
import { decisionOf, loginBody, signupBody } from './support/account-fixtures.ts';
import { expectError, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { type NamedIdentity, named, returnBody } from './support/commerce.ts';
import { orderBody, uid } from './support/fixtures.ts';

let api: TestApi;
let apiKey: string;
let merchantId: string;

beforeAll(async () => {
  api = await startTestApi();
  ({ apiKey, merchantId } = await newMerchant());
});
afterAll(() => api.close());
afterEach(() => vi.useRealTimers());

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The identities as `merchantId` stores them. */
const refsAt = async (merchantId: string, ...identities: NamedIdentity[]) => {
  const identity = await identityDigests(merchantId);
  return identities.map((i) => identity(i.kind, i.normalized));
};
const emailRef = (email: string) => named('email', normalizeEmail(email));
const customerRef = (customerId: string) => named('customer', customerId.trim());

describe('history at the event time', () => {
  it('an out-of-order pair lands in the right windows and the late one does not change the earlier decision', async () => {
    const email = `${uid('late')}@example.com`;
    // Windows are bucket-aligned: read at 7 minutes into a past quarter-hour, 2 minutes after the recent order.
    const now = Math.floor(Date.now() / (15 * MINUTE)) * 15 * MINUTE - 8 * MINUTE;
    const recent = orderBody({ email, timestamp: now - 2 * MINUTE });
    const late = orderBody({ email, timestamp: now - 3 * DAY });
    expect((await api.post('/v1/order', recent, { apiKey })).status).toBe(200);
    const recentDecision = (await getRecord<OrderItem>(keys.order(merchantId, recent.providerOrderId)))
      ?.decision;

    const lateResponse = await api.post('/v1/order', late, { apiKey });
    expect(lateResponse.status).toBe(200);
    // Read as of its own time the late order finds no earlier order: the recent one is after it.
    expect(lateResponse.body.cartLevelDecisions[0].decisions[0].decisionReason).toContain(
      'first order from this e-mail',
    );

    const [asOfNow] = await loadSnapshots(merchantId, await refsAt(merchantId, emailRef(email)), now);
    expect(asOfNow!.count(METRIC.orders)).toMatchObject({ m15: 1, h1: 1, h24: 1, d30: 2, lifetime: 2 });
    expect(asOfNow!.firstSeenAt).toBe(now - 3 * DAY);
    expect(asOfNow!.lastSeenAt).toBe(now - 2 * MINUTE);
    const [asOfLate] = await loadSnapshots(
      merchantId,
      await refsAt(merchantId, emailRef(email)),
      now - 3 * DAY,
    );
    expect(asOfLate!.count(METRIC.orders)).toMatchObject({ m15: 1, h1: 1, h24: 1, d30: 1 });
    // The earlier decision keeps the variables it was made with.
    expect((await getRecord<OrderItem>(keys.order(merchantId, recent.providerOrderId)))?.decision).toEqual(
      recentDecision,
    );
  });

  it("a return sees the ages of its order's identities and the time since the order, as of its own time", async () => {
    const email = `${uid('aging')}@example.com`;
    const orderedAt = Date.now() - 3 * DAY;
    const order = orderBody({ email, timestamp: orderedAt });
    expect((await api.post('/v1/order', order, { apiKey })).status).toBe(200);
    const returned = returnBody(order, { timestamp: orderedAt + 2 * DAY });
    expect((await api.post('/v1/return', returned, { apiKey })).status).toBe(200);

    const item = await getRecord<Record<string, unknown>>(keys.return(merchantId, returned.providerReturnId));
    const [decision] = decisionsOfItem(item!);
    // Two days, not three: the return is read at its own time, not at the server's.
    expect(decision!.fields).toMatchObject({
      emailAgeSeconds: (2 * DAY) / 1000,
      cardAgeSeconds: (2 * DAY) / 1000,
      secondsSincePreviousEvent: (2 * DAY) / 1000,
    });
  });

  it('a replay of events at their own times scores exactly as their live delivery with a fixed clock', async () => {
    const start = Date.now() - 10 * DAY;
    const device = uid('shared-device');
    const scenario = Array.from({ length: 4 }, (_, i) => {
      const email = `${uid('burst')}@example.com`;
      const signedUpAt = start + i * 2 * MINUTE;
      return {
        signup: signupBody({ email, device }),
        signedUpAt,
        order: orderBody({ email, device, timestamp: signedUpAt + 4_000 + i * 1_000 }),
        login: loginBody({ device }),
        loggedInAt: signedUpAt + 30_000,
      };
    });
    type Step = { at: number; path: string; body: Record<string, unknown> };
    const steps: Step[] = scenario
      .flatMap((s): Step[] => [
        { at: s.signedUpAt, path: '/v1/evaluate/signup', body: s.signup },
        { at: Number(s.order.timestamp), path: '/v1/order', body: s.order },
        { at: s.loggedInAt, path: '/v1/evaluate/login', body: s.login },
      ])
      .sort((a, b) => a.at - b.at);
    const outcome = (body: Record<string, unknown>) => {
      const cart = body.cartLevelDecisions as { decisions: unknown[] }[] | undefined;
      const { abuseScore, decision, decisionReason } = (cart ? cart[0]!.decisions[0] : decisionOf(body)) as {
        abuseScore: number;
        decision: string;
        decisionReason: string;
      };
      return { abuseScore, decision, decisionReason };
    };

    // Live: the clock stands at each event's time; signups and logins carry no timestamp.
    const live: unknown[] = [];
    const liveKey = (await newMerchant()).apiKey;
    for (const step of steps) {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(step.at);
      const response = await api.post(step.path, step.body, { apiKey: liveKey });
      vi.useRealTimers();
      expect(response.status, step.path).toBe(200);
      live.push(outcome(response.body));
    }
    // Replay: ten days later, every event carrying its own time.
    const replayed: unknown[] = [];
    const replayKey = (await newMerchant()).apiKey;
    for (const step of steps) {
      const response = await api.post(
        step.path,
        { ...step.body, timestamp: String(step.at) },
        { apiKey: replayKey },
      );
      expect(response.status, step.path).toBe(200);
      replayed.push(outcome(response.body));
    }
    expect(replayed).toEqual(live);
    // And the burst is visible: the last order sees the three e-mails before it on the shared device,
    // first seen at the first signup, 6 minutes before it.
    expect(live.at(-2)).toMatchObject({
      decision: 'DECLINE',
      decisionReason: expect.stringContaining(
        'device first seen 6 minutes ago, already used with 3 other e-mails',
      ),
    });
  });
});

describe('optional timestamp on signup and login', () => {
  it('a signup with a timestamp registers its account and e-mail at that time; without one, at receipt', async () => {
    const at = Date.now() - 40 * DAY;
    const dated = signupBody();
    expect(
      (await api.post('/v1/evaluate/signup', { ...dated, timestamp: String(at) }, { apiKey })).status,
    ).toBe(200);
    const email = dated.contactInformation[0]!.address as string;
    const [account, mail] = await loadSnapshots(
      merchantId,
      await refsAt(merchantId, customerRef(dated.customerId), emailRef(email)),
      Date.now(),
    );
    expect(account!.firstSeenAt).toBe(at);
    expect(mail!.firstSeenAt).toBe(at);

    const undated = signupBody();
    const before = Date.now();
    expect((await api.post('/v1/evaluate/signup', undated, { apiKey })).status).toBe(200);
    const [fresh] = await loadSnapshots(
      merchantId,
      await refsAt(merchantId, customerRef(undated.customerId)),
      Date.now(),
    );
    expect(fresh!.firstSeenAt).toBeGreaterThanOrEqual(before);
    expect(fresh!.firstSeenAt).toBeLessThanOrEqual(Date.now());
  });

  it('a login with a timestamp is counted in the windows of its time; without one, now', async () => {
    const customer = uid('cust');
    const at = Date.now() - 2 * DAY;
    const dated = {
      ...loginBody({ providerCustomerId: customer, status: '$failure' }),
      timestamp: String(at),
    };
    expect((await api.post('/v1/evaluate/login', dated, { apiKey })).status).toBe(200);
    expect(
      (
        await api.post(
          '/v1/evaluate/login',
          loginBody({ providerCustomerId: customer, status: '$failure' }),
          { apiKey },
        )
      ).status,
    ).toBe(200);
    const [account] = await loadSnapshots(
      merchantId,
      await refsAt(merchantId, customerRef(customer)),
      Date.now(),
    );
    expect(account!.count(METRIC.loginFailures)).toMatchObject({ h1: 1, h24: 1, d30: 2 });
    expect(account!.firstSeenAt).toBe(at);
  });

  it.each([
    ['not digits', 'yesterday'],
    ['too short', '12345'],
    ['before 2000', String(Date.UTC(1999, 11, 31))],
    ['more than a day ahead', String(Date.now() + 2 * DAY)],
  ])('a bad timestamp (%s) is 422 invalid_timestamp and records nothing', async (_label, timestamp) => {
    const signup = signupBody();
    expectError(
      await api.post('/v1/evaluate/signup', { ...signup, timestamp }, { apiKey }),
      422,
      'invalid_timestamp',
      'timestamp',
    );
    expect(await getRecord(keys.signup(merchantId, signup.customerId))).toBeUndefined();
    const login = { ...loginBody(), timestamp };
    expectError(
      await api.post('/v1/evaluate/login', login, { apiKey }),
      422,
      'invalid_timestamp',
      'timestamp',
    );
    const [account] = await loadSnapshots(
      merchantId,
      await refsAt(merchantId, customerRef(login.providerCustomerId)),
      Date.now(),
    );
    expect(account!.known).toBe(false);
  });
});
