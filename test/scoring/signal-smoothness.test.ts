import { describe, expect, it } from 'vitest';
import type { EventType } from '../../shared/contract/endpoints.ts';
import { METRIC } from '../../shared/identity/metrics.ts';
import type { NetworkReputation } from '../../shared/scoring/network-reputation.ts';
import { accountSignals } from '../../shared/scoring/signals/account-signals.ts';
import { loginSignals } from '../../shared/scoring/signals/login-signals.ts';
import { orderSignals } from '../../shared/scoring/signals/order-signals.ts';
import type { SignalName } from '../../shared/scoring/signals/registry.ts';
import { returnSignals } from '../../shared/scoring/signals/return-signals.ts';
import type { Signals } from '../../shared/scoring/signals/signal.ts';
import { signupSignals } from '../../shared/scoring/signals/signup-signals.ts';
import { type WatchFacts, watchFacts } from '../../shared/scoring/signals/watched-identity.ts';
import {
  ACCOUNT,
  AT,
  accountUpdate,
  DAY,
  EMAIL,
  login,
  order,
  returned,
  signup,
  timeFacts,
} from './scoring-inputs.ts';
import { countIn, fakeSnapshot, listMarker } from './snapshots.ts';

/**
 * No cliffs: every signal that reads a time, a count or a ratio is swept over a wide range of it
 * (seconds to a year, 0 to thousands of events, ratios from 0 to several times), and its value may
 * move between neighbouring points by at most a stated step. A signal that switched at a constant
 * (an if at 3 days, at 5 signups, at 10x) would jump there by its whole value.
 *
 * - A count's neighbours are one event apart (every count up to 100, then 10 % apart): at most 1,
 *   what log2(1 + n) moves from 0 to 1 event.
 * - A time's neighbours are 10 % apart, from a second to 400 days (a day apart where the signal
 *   reads days): at most 0.25.
 * - A ratio's neighbours are 0.02 apart: at most 0.3.
 * Windowed counts (the last hour, 24 hours) are counts.
 */
const STEP = { count: 1, time: 0.25, ratio: 0.3 } as const;

interface Sweep<Input> {
  input: string;
  points: readonly number[];
  make: (x: number) => Input;
  step: number;
}

const COUNTS = [
  ...Array.from({ length: 101 }, (_, n) => n),
  ...Array.from({ length: 40 }, (_, k) => Math.round(100 * 1.1 ** (k + 1))),
];
const SECONDS = Array.from({ length: 180 }, (_, k) => Math.round(1.1 ** k)).filter(
  (s, i, all) => all.indexOf(s) === i && s <= 400 * 86_400,
);
const RATIOS = Array.from({ length: 201 }, (_, k) => k * 0.02);
const DAYS = Array.from({ length: 401 }, (_, d) => d);

const counts = <Input>(input: string, make: (n: number) => Input): Sweep<Input> => ({
  input,
  points: COUNTS,
  make,
  step: STEP.count,
});
const seconds = <Input>(input: string, make: (s: number) => Input): Sweep<Input> => ({
  input,
  points: SECONDS,
  make,
  step: STEP.time,
});
const days = <Input>(input: string, make: (d: number) => Input): Sweep<Input> => ({
  input,
  points: DAYS,
  make,
  step: STEP.time,
});
const ratios = <Input>(input: string, make: (r: number) => Input): Sweep<Input> => ({
  input,
  points: RATIOS,
  make,
  step: STEP.ratio,
});

/** Per signal, its sweeps; a signal that reads no time, count or ratio says what it reads instead. */
type SignalSweeps<T extends EventType, Input> = Record<SignalName<T>, readonly Sweep<Input>[] | string>;

const FLAG = 'a yes/no fact of the request';

/** The largest move between neighbouring points, and where. */
function largestStep<Input>(sweep: Sweep<Input>, name: string, signalsOf: (input: Input) => Signals) {
  const values = sweep.points.map((x) => signalsOf(sweep.make(x))[name]?.value ?? 0);
  let largest = { step: 0, from: sweep.points[0]!, to: sweep.points[0]! };
  for (let i = 1; i < values.length; i++) {
    const step = Math.abs(values[i]! - values[i - 1]!);
    if (step > largest.step) largest = { step, from: sweep.points[i - 1]!, to: sweep.points[i]! };
  }
  return { ...largest, fired: values.some((v) => v > 0) };
}

function describeSweeps<T extends EventType, Input>(
  eventType: T,
  signalsOf: (input: Input) => Signals,
  sweeps: SignalSweeps<T, Input>,
): void {
  describe(`${eventType}: no signal jumps between neighbouring times, counts or ratios`, () => {
    for (const [name, entry] of Object.entries(sweeps) as [string, readonly Sweep<Input>[] | string][]) {
      if (typeof entry === 'string') continue;
      for (const sweep of entry) {
        it(`${name} over ${sweep.input}: steps of at most ${sweep.step}`, () => {
          const largest = largestStep(sweep, name, signalsOf);
          expect(largest.fired, `${name} never fires over ${sweep.input}: the sweep tests nothing`).toBe(
            true,
          );
          expect(
            largest.step,
            `${name} moves ${largest.step.toFixed(3)} between ${sweep.input} ${largest.from} and ${largest.to}`,
          ).toBeLessThanOrEqual(sweep.step);
        });
      }
    }
  });
}

// ---- Inputs of the shared signals -------------------------------------------------------------

const ENTRY = AT - 30 * DAY;
/** A device a feedback rule listed with `keptAtEntry` clean events, and `chargebacks` lost on it. */
const watchedDevice = (keptAtEntry = 0, chargebacks = 1) =>
  fakeSnapshot('device', 'd1', {
    lists: [
      listMarker({
        id: 'watch0001',
        list: 'watch',
        since: ENTRY,
        note: { cause: 'chargeback', ref: 'o-1' },
        keptAtEntry,
      }),
    ],
    counts: { [METRIC.lostChargebacks]: { lifetime: chargebacks } },
  });
/** A customer first seen a day after the entry, with `activeDays` of coming back and `kept` orders. */
const watchedCustomer = (
  type: EventType,
  activeDays: number,
  kept: number,
  device = watchedDevice(),
): WatchFacts =>
  watchFacts(
    type,
    [device],
    [
      fakeSnapshot('email', 'e1', {
        firstSeenAt: ENTRY + DAY,
        lastSeenAt: ENTRY + DAY + activeDays * DAY,
        counts: { [METRIC.orders]: { lifetime: kept } },
      }),
    ],
    'e-mail',
    ENTRY + 2 * DAY + activeDays * DAY,
  );
const watchSweeps = <Input>(type: EventType, make: (watch: WatchFacts) => Input) => ({
  watchedIdentityNewCustomer: [
    seconds('days the customer came back over, in seconds', (s) =>
      make(watchedCustomer(type, s / 86_400, 0)),
    ),
    counts('kept orders', (n) => make(watchedCustomer(type, 0, n))),
    counts("the device's clean events at its entry", (n) =>
      make(watchedCustomer(type, 0, 0, watchedDevice(n))),
    ),
    counts('chargebacks on the device since its entry after 40 clean events', (n) =>
      make(watchedCustomer(type, 0, 0, watchedDevice(40, n))),
    ),
  ],
  watchedIdentityKnownCustomer: [
    seconds('days the customer came back over, in seconds', (s) =>
      make(watchedCustomer(type, s / 86_400, 0)),
    ),
    counts('kept orders', (n) => make(watchedCustomer(type, 0, n))),
  ],
});

const sinceSweep = <Input>(make: (time: ReturnType<typeof timeFacts>) => Input) => [
  seconds('seconds since the previous event', (s) => make(timeFacts({ secondsSincePreviousEvent: s }))),
];
const youngSweep = <Input>(
  kind: 'email' | 'customer',
  make: (time: ReturnType<typeof timeFacts>) => Input,
) => [seconds(`the ${kind}'s age`, (s) => make(timeFacts({ ages: { ...timeFacts().ages, [kind]: s } })))];
const velocitySweep = <Input>(
  pair: keyof ReturnType<typeof timeFacts>['velocity'],
  make: (time: ReturnType<typeof timeFacts>) => Input,
) => [
  counts(`other identities in the hour (${pair})`, (n) =>
    make(timeFacts({ velocity: { ...timeFacts().velocity, [pair]: { m15: 0, h1: n, h24: n } } })),
  ),
];
const withLinks = (kind: string, n: number, own: string) => [
  own,
  ...Array.from({ length: n }, (_, i) => `${kind}-${i}`),
];

// ---- Orders -------------------------------------------------------------------------------------

const orderWithTime = (time: ReturnType<typeof timeFacts>) => order({ input: { time } });
const newEmail = { counts: {} };
const reputation = (abuse: number, newMerchants: number): NetworkReputation => ({
  ref: { kind: 'card', digest: 'card-1' },
  abuseMerchants: abuse,
  abuse: {
    chargeback: { count: abuse, latestAt: AT - DAY },
    disposition: { count: 0, latestAt: undefined },
    review: { count: 0, latestAt: undefined },
    takeover: { count: 0, latestAt: undefined },
  },
  newMerchantsLastDay: newMerchants,
  merchants: abuse + newMerchants,
  firstSeenAt: AT - 30 * DAY,
});

describeSweeps('order', orderSignals, {
  ...watchSweeps('order', (watch) => order({ input: { watch } })),
  scriptSpeedAfterPreviousEvent: sinceSweep(orderWithTime),
  youngIdentity: youngSweep('email', orderWithTime),
  newIdentitiesAroundLastHour: velocitySweep('emailsPerCard', orderWithTime),
  lostChargebacksOnIdentities: [
    counts('lost chargebacks on the card', (n) =>
      order({ card: { counts: { [METRIC.lostChargebacks]: countIn('d365', n) } } }),
    ),
  ],
  lostChargebacksOnSharedIdentities: [
    counts('lost chargebacks on the address', (n) =>
      order({ email: newEmail, address: { counts: { [METRIC.lostChargebacks]: countIn('d365', n) } } }),
    ),
    seconds("the order's e-mail age", (s) =>
      order({
        email: { counts: {}, firstSeenAt: AT - s * 1000 },
        address: { counts: { [METRIC.lostChargebacks]: countIn('d365', 3) } },
      }),
    ),
  ],
  freshAccountsOnYoungIdentity: [
    seconds("the card's age", (s) =>
      order({ email: newEmail, card: { links: { email: [EMAIL, 'e2'] }, firstSeenAt: AT - s * 1000 } }),
    ),
    seconds("the order's e-mail age", (s) =>
      order({
        email: { counts: {}, firstSeenAt: AT - s * 1000 },
        card: { links: { email: [EMAIL, 'e2'] }, firstSeenAt: AT - DAY },
      }),
    ),
    counts('other e-mails on the card', (n) =>
      order({ email: newEmail, card: { links: { email: withLinks('e', n, EMAIL) }, firstSeenAt: AT - DAY } }),
    ),
  ],
  abusiveReturnsOnIdentities: [
    counts('abusive returns on the device', (n) =>
      order({ device: { counts: { [METRIC.abusiveReturns]: countIn('d365', n) } } }),
    ),
  ],
  openDisputesOnIdentities: [
    counts('open disputes on the card', (n) =>
      order({ card: { counts: { [METRIC.openDisputes]: countIn('lifetime', n) } } }),
    ),
  ],
  cardSharedAcrossEmails: [
    counts('other e-mails on the card', (n) =>
      order({ card: { links: { email: withLinks('e', n, EMAIL) } } }),
    ),
  ],
  deviceSharedAcrossEmails: [
    counts('other e-mails on the device', (n) =>
      order({ email: newEmail, device: { links: { email: withLinks('e', n, EMAIL) } } }),
    ),
    seconds("the order's e-mail age", (s) =>
      order({
        email: { counts: {}, firstSeenAt: AT - s * 1000 },
        device: { links: { email: [EMAIL, 'e2'] } },
      }),
    ),
  ],
  ordersLastHourOnIdentities: [
    counts('orders on the card in the hour', (n) =>
      order({ card: { counts: { [METRIC.orders]: countIn('h1', n) } } }),
    ),
  ],
  newCustomer: "the e-mail's first order or not: one event, a step of 1",
  billingShippingMismatch: FLAG,
  cvvMismatch: FLAG,
  avsMismatch: FLAG,
  giftCardUsed: FLAG,
  legitimateReviewsOnIdentities: [
    counts('reviews resolved legitimate on the e-mail', (n) =>
      order({
        email: {
          counts: {
            [METRIC.orders]: { lifetime: 2 },
            [METRIC.orderValue]: { lifetime: 100 },
            [METRIC.legitimateReviews]: countIn('d365', n),
          },
        },
      }),
    ),
  ],
  networkConfirmedAbuse: [
    counts('other merchants confirming abuse (the floor of 3 is the documented step)', (n) =>
      order({ input: { network: [reputation(n, 0)] } }),
    ),
  ],
  networkNewMerchantsLastDay: [
    counts('other merchants first seeing the card in the day', (n) =>
      order({ input: { network: [reputation(0, n)] } }),
    ),
  ],
  orderValueVsHistory: [
    ratios("the order's value over the customer's average", (r) => order({ input: { orderValue: 50 * r } })),
  ],
});

// ---- Returns ------------------------------------------------------------------------------------

/** A customer with `orders` orders worth 50 each and `returns` of them returned. */
const returner = (orders: number, returns: number) => ({
  counts: {
    [METRIC.orders]: { lifetime: orders },
    [METRIC.orderValue]: { lifetime: 50 * orders },
    [METRIC.returns]: { lifetime: returns, d365: returns, d30: returns },
    [METRIC.returnValue]: { lifetime: 50 * returns },
  },
});

describeSweeps('return', returnSignals, {
  ...watchSweeps('return', (watch) => returned({ input: { watch } })),
  moreUnitsReturnedThanBought: [
    counts('units returned before', (n) => returned({ item: { unitsReturnedBefore: n, unitsBought: 1 } })),
  ],
  abusiveReturnsOnIdentities: [
    counts('abusive returns on the address', (n) =>
      returned({ address: { counts: { [METRIC.abusiveReturns]: countIn('d365', n) } } }),
    ),
  ],
  lostChargebacksOnIdentities: [
    counts('lost chargebacks on the address', (n) =>
      returned({ address: { counts: { [METRIC.lostChargebacks]: countIn('d365', n) } } }),
    ),
  ],
  openDisputesOnIdentities: [
    counts('open disputes on the address', (n) =>
      returned({ address: { counts: { [METRIC.openDisputes]: countIn('lifetime', n) } } }),
    ),
  ],
  returnsLast30Days: [counts('returns in 30 days', (n) => returned({ email: returner(10 * n + 1, n) }))],
  returnsLast365Days: [counts('returns in the year', (n) => returned({ email: returner(10 * n + 1, n) }))],
  returnRateByCount: [
    counts('earlier returns at a rate of 1', (n) => returned({ email: returner(n, n) })),
    ratios('the share of 100 orders returned', (r) =>
      returned({ email: returner(100, Math.round(100 * r)) }),
    ),
  ],
  returnRateByValue: [
    counts('earlier returns at a rate of 1', (n) => returned({ email: returner(n, n) })),
    ratios('the share of 100 orders returned', (r) =>
      returned({ email: returner(100, Math.round(100 * r)) }),
    ),
  ],
  lateReturn: [days('days since the order', (d) => returned({ input: { daysSinceOrder: d } }))],
  highValueCategory: "the item's category: a word list",
  highValueItem: [ratios("the item's value, in hundreds", (r) => returned({ item: { value: 100 * r * 5 } }))],
  refundToOriginalPayment: FLAG,
  refundAsExchange: FLAG,
  returnDeviceSharedAcrossEmails: [
    counts('other e-mails on the return device', (n) =>
      returned({ device: { links: { email: withLinks('e', n, EMAIL) } } }),
    ),
  ],
});

// ---- Signups ------------------------------------------------------------------------------------

const signupWithTime = (time: ReturnType<typeof timeFacts>) => signup({ input: { time } });
/** A domain's and the merchant's signups: `hour` in the last hour, `month` before it. */
const signupsIn = (hour: number, month: number) => ({
  counts: {
    [METRIC.signups]: {
      m15: 0,
      h1: hour,
      h24: hour,
      d30: hour + month,
      d365: hour + month,
      lifetime: hour + month,
    },
  },
});

describeSweeps('signup', signupSignals, {
  ...watchSweeps('signup', (watch) => signup({ input: { watch } })),
  scriptSpeedAfterPreviousEvent: sinceSweep(signupWithTime),
  newIdentitiesAroundLastHour: velocitySweep('customersPerAddress', signupWithTime),
  freshAccountsOnYoungIdentity: [
    seconds("the device's age", (s) =>
      signup({ device: { links: { customer: ['a1'] }, firstSeenAt: AT - s * 1000 } }),
    ),
    counts('other accounts on a day-old device', (n) =>
      signup({ device: { links: { customer: withLinks('a', n, 'x').slice(1) }, firstSeenAt: AT - DAY } }),
    ),
  ],
  deviceSharedWithOtherAccounts: [
    counts('other accounts on the device', (n) =>
      signup({ device: { links: { customer: withLinks('a', n, ACCOUNT) } } }),
    ),
  ],
  phoneSharedWithOtherAccounts: [
    counts('other accounts on the phone', (n) =>
      signup({ phone: { links: { customer: withLinks('a', n, ACCOUNT) } } }),
    ),
  ],
  addressSharedWithOtherAccounts: [
    counts('other accounts on the address', (n) =>
      signup({ address: { links: { customer: withLinks('a', n, ACCOUNT) } } }),
    ),
  ],
  emailSharedWithOtherAccounts: [
    counts('other accounts on the e-mail', (n) =>
      signup({ email: { links: { customer: withLinks('a', n, ACCOUNT) } } }),
    ),
  ],
  scriptedOrdersFromDevice: [
    counts("orders the device sent seconds after their account's signup", (n) =>
      signup({
        device: {
          counts: { [METRIC.scriptedOrders]: { d365: n, lifetime: n } },
          latest: { [METRIC.scriptedOrders]: 60 },
        },
      }),
    ),
    seconds('time since the latest of them', (s) =>
      signup({
        device: {
          counts: { [METRIC.scriptedOrders]: { d365: 1, lifetime: 1 } },
          latest: { [METRIC.scriptedOrders]: s },
        },
      }),
    ),
  ],
  signupsFromDeviceLastHour: [
    counts('signups from the device in the hour', (n) =>
      signup({ device: { counts: { [METRIC.signups]: countIn('h1', n) } } }),
    ),
  ],
  signupsFromDeviceEarlierToday: [
    counts('signups from the device earlier today', (n) =>
      signup({ device: { counts: { [METRIC.signups]: countIn('h24', n) } } }),
    ),
  ],
  signupsOnEmailDomainLastHour: [
    counts("the domain's signups in the hour, a merchant of 10,000 a month", (n) =>
      signup({ domain: signupsIn(n, 0), traffic: signupsIn(400 + n, 10_000) }),
    ),
    counts("the merchant's signups in the month before (its age), a domain of 40 in the hour", (n) =>
      signup({ domain: signupsIn(40, 0), traffic: signupsIn(400, n * 10) }),
    ),
  ],
  selfReferral: 'which identities the referrer shares: a kind each, weighed by SELF_REFERRAL_WEIGHT',
  referrerReferralBurst: [
    counts("the referrer's referrals in the day", (n) =>
      signup({ referrer: { counts: { [METRIC.referrals]: countIn('h24', n) } } }),
    ),
  ],
  emailVariantOnDevice: FLAG,
  holderNameOnDevice: FLAG,
  disposableEmail: FLAG,
  machineGeneratedEmail: [
    ratios("the e-mail's machine-generated score, 0..1", (r) =>
      signup({ input: { machineGeneratedEmail: Math.min(1, r) } }),
    ),
  ],
});

// ---- Logins and account updates -------------------------------------------------------------------

const accountCounts = (metric: string, windowed: ReturnType<typeof countIn>) => ({
  links: { device: ['device-1'] },
  counts: { [metric]: windowed },
});
/** An account with `logins` successful logins, `mfa` of them with MFA. */
const mfaHabit = (logins: number, mfa: number) => ({
  links: { device: ['device-1'] },
  counts: { [METRIC.loginSuccesses]: { lifetime: logins }, [METRIC.mfaLogins]: { lifetime: mfa } },
});
const otherDevice = { links: { customer: [] } };

describeSweeps('login', loginSignals, {
  ...watchSweeps('login', (watch) => login({ input: { watch } })),
  newIdentitiesAroundLastHour: velocitySweep('customersPerDevice', (time) => login({ input: { time } })),
  accountFailuresLastHour: [
    counts('failures on the account in the hour', (n) =>
      login({ account: accountCounts(METRIC.loginFailures, countIn('h1', n)), input: { success: false } }),
    ),
  ],
  accountFailuresEarlierToday: [
    counts('failures on the account earlier today', (n) =>
      login({ account: accountCounts(METRIC.loginFailures, countIn('h24', n)), input: { success: false } }),
    ),
  ],
  successAfterFailures: [
    counts('failures before the success, from a device the account does not know', (n) =>
      login({
        account: { links: { device: ['device-9'] }, counts: { [METRIC.loginFailures]: countIn('h1', n) } },
        device: otherDevice,
      }),
    ),
  ],
  deviceAccountsTried: [
    counts('other accounts the device tried today', (n) =>
      login({
        device: { links: { customer: [] }, counts: { [METRIC.deviceAccountsTried]: countIn('h24', n) } },
      }),
    ),
  ],
  deviceFailuresLastHour: [
    counts('failures from the device in the hour', (n) =>
      login({ device: { counts: { [METRIC.loginFailures]: countIn('h1', n) } } }),
    ),
  ],
  newDeviceForAccount: 'whether the account knows the device: one device, a step of 1',
  mfaNotUsedWhereUsual: [
    counts('earlier logins, all with MFA', (n) => login({ account: mfaHabit(n, n) })),
    ratios('the share of 100 earlier logins with MFA', (r) =>
      login({ account: mfaHabit(100, Math.round(100 * Math.min(1, r))) }),
    ),
  ],
});

const risky = { changeType: 'PAYOUT_METHOD_CHANGE', risky: true };
const updateWithTime = (time: ReturnType<typeof timeFacts>) => accountUpdate({ input: { time } });

describeSweeps('account', accountSignals, {
  ...watchSweeps('account', (watch) => accountUpdate({ input: { watch } })),
  scriptSpeedAfterPreviousEvent: sinceSweep(updateWithTime),
  youngIdentity: youngSweep('customer', updateWithTime),
  newIdentitiesAroundLastHour: velocitySweep('customersPerDevice', updateWithTime),
  riskyChange: FLAG,
  riskyChangeAfterNewDeviceLogin: [
    seconds('since the latest new-device login', (s) =>
      accountUpdate({
        account: { links: { device: ['device-1'] }, latest: { [METRIC.newDeviceLogins]: s } },
        input: risky,
      }),
    ),
  ],
  riskyChangeAfterFailures: [
    counts('failed logins today', (n) =>
      accountUpdate({ account: accountCounts(METRIC.loginFailures, countIn('h24', n)), input: risky }),
    ),
  ],
  riskyChangesLastHour: [
    counts('other risky changes in the hour', (n) =>
      accountUpdate({ account: accountCounts(METRIC.riskyAccountChanges, countIn('h1', n)), input: risky }),
    ),
  ],
  deviceNotSeenForAccount: 'whether the account knows the device: one device, a step of 1',
  deviceAbuseOnOtherAccounts: [
    counts('lost chargebacks on a device of other accounts', (n) =>
      accountUpdate({
        device: {
          links: { customer: [ACCOUNT, 'a2', 'a3', 'a4'] },
          counts: { [METRIC.lostChargebacks]: countIn('d365', n) },
        },
      }),
    ),
    counts('other accounts on a device with 3 lost chargebacks', (n) =>
      accountUpdate({
        device: {
          links: { customer: withLinks('a', n, ACCOUNT) },
          counts: { [METRIC.lostChargebacks]: countIn('d365', 3) },
        },
      }),
    ),
  ],
  deviceSharedWithOtherAccounts: [
    counts('other accounts on the device', (n) =>
      accountUpdate({ device: { links: { customer: withLinks('a', n, ACCOUNT) } } }),
    ),
  ],
});

describe('signup: a burst is a share, not a busy merchant', () => {
  const burst = (input: ReturnType<typeof signup>) =>
    signupSignals(input).signupsOnEmailDomainLastHour?.value ?? 0;
  /** A merchant of 1,000 signups an hour for a month, one domain taking 3 % of them. */
  const hour = (surge: number, domainShare: number) =>
    signup({
      domain: signupsIn(Math.round(1_000 * surge * domainShare), 21_600),
      traffic: signupsIn(1_000 * surge, 720_000),
    });

  it('the whole merchant at 1 to 20 times its usual hour, the domain keeping its share: nothing', () => {
    for (let surge = 1; surge <= 20; surge += 0.5) expect(burst(hour(surge, 0.03)), `surge ${surge}`).toBe(0);
  });

  it('the same domain taking 10 % of a usual hour: a burst', () => {
    expect(burst(hour(1, 0.1))).toBeGreaterThan(5);
  });
});
