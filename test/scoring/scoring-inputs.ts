import { METRIC } from '../../shared/identity/metrics.ts';
import type { AccountScoringInput } from '../../shared/scoring/signals/account-signals.ts';
import type { IdentityTimeFacts } from '../../shared/scoring/signals/identity-time.ts';
import type { LoginScoringInput } from '../../shared/scoring/signals/login-signals.ts';
import type { OrderScoringInput } from '../../shared/scoring/signals/order-signals.ts';
import type { ReturnScoringInput } from '../../shared/scoring/signals/return-signals.ts';
import type { SignupScoringInput } from '../../shared/scoring/signals/signup-signals.ts';
import { type FakeHistory, fakeSnapshot, orderHistoryOf } from './snapshots.ts';

/**
 * Clean scoring inputs that fire no signal, one per event type, each changed in one way by the
 * tests: a returning customer paying as usual, a first return, a signup on fresh identities, a
 * login and a low-risk account update from the account's own device.
 */
export const EMAIL = 'email-1';
export const ACCOUNT = 'customer-1';
/** The event's own time: ages and velocity windows are read as of it. */
export const AT = Date.UTC(2026, 5, 15, 12);
export const DAY = 86_400_000;

/**
 * A device already used with another address than the event's: nothing on it says the event comes
 * from its home (household.ts), unless a test links it to the event's address.
 */
const SHIPPED_ELSEWHERE = { address: ['address-0'] };

/** Time facts of an event with no earlier sighting of anything, changed by `change`. */
export function timeFacts(change: Partial<IdentityTimeFacts> = {}): IdentityTimeFacts {
  const quiet = { m15: 0, h1: 0, h24: 0 };
  return {
    ages: { email: -1, customer: -1, device: -1, card: -1, address: -1 },
    secondsSincePreviousEvent: -1,
    mainKind: 'customer',
    velocity: {
      emailsPerDevice: quiet,
      customersPerDevice: quiet,
      cardsPerDevice: quiet,
      emailsPerCard: quiet,
      customersPerAddress: quiet,
    },
    ...change,
  };
}

/** An e-mail with 2 earlier orders worth 100 in all: a returning customer. */
export const withOrders = (extra: Record<string, Partial<Record<string, number>>> = {}): FakeHistory => ({
  counts: { [METRIC.orders]: { lifetime: 2 }, [METRIC.orderValue]: { lifetime: 100 }, ...extra },
});

export function order(
  change: {
    email?: FakeHistory;
    card?: FakeHistory;
    device?: FakeHistory;
    address?: FakeHistory;
    input?: Partial<Omit<OrderScoringInput, 'history'>>;
  } = {},
): OrderScoringInput {
  const email = fakeSnapshot('email', EMAIL, { ...withOrders(), ...change.email });
  const card = fakeSnapshot('card', 'card-1', { links: { email: [EMAIL] }, ...change.card });
  const device = fakeSnapshot('device', 'device-1', {
    ...change.device,
    links: { ...SHIPPED_ELSEWHERE, email: [EMAIL], ...change.device?.links },
  });
  const address = fakeSnapshot('address', 'address-1', change.address);
  return {
    orderValue: 50,
    at: AT,
    cvvResultCodes: ['M'],
    avsResultCodes: ['Y'],
    giftCardUsed: false,
    billingShippingMismatch: false,
    ...change.input,
    ...orderHistoryOf(email, card, device, address, AT),
    ...(change.input?.time ? { time: change.input.time } : {}),
  };
}

export function returned(
  change: {
    email?: FakeHistory;
    device?: FakeHistory;
    address?: FakeHistory;
    input?: Partial<Omit<ReturnScoringInput, 'history' | 'item'>>;
    item?: Partial<ReturnScoringInput['item']>;
  } = {},
): ReturnScoringInput {
  const email = fakeSnapshot('email', EMAIL, {
    counts: { [METRIC.orders]: { lifetime: 1 }, [METRIC.orderValue]: { lifetime: 50 } },
    ...change.email,
  });
  const device = fakeSnapshot('device', 'return-device', { links: { email: [EMAIL] }, ...change.device });
  const address = fakeSnapshot('address', 'address-1', change.address);
  return {
    refundMode: 'STORE_CREDIT',
    daysSinceOrder: 7,
    ...change.input,
    item: {
      category: 'Apparel',
      value: 50,
      quantity: 1,
      unitsBought: 1,
      unitsReturnedBefore: 0,
      ...change.item,
    },
    history: { customer: [email], returnDevices: [device], all: [email, device, address] },
    ownEmails: [{ kind: 'email', digest: EMAIL }],
  };
}

/** A signup of account ACCOUNT whose device, phone, address and e-mail nobody else used. */
export function signup(
  change: {
    device?: FakeHistory;
    phone?: FakeHistory;
    address?: FakeHistory;
    email?: FakeHistory;
    domain?: FakeHistory;
    /** The merchant's signups (one shard holding them all). */
    traffic?: FakeHistory;
    /** The account holder's surname; absent: the signup gives none. */
    surname?: FakeHistory;
    /** The digest of the holder's first name and surname; absent: the signup gives no whole name. */
    fullName?: string;
    /** The digests of the e-mails' stems; absent: none. */
    emailStems?: string[];
    referrer?: FakeHistory;
    input?: Partial<Omit<SignupScoringInput, 'history'>>;
  } = {},
): SignupScoringInput {
  return {
    customer: { kind: 'customer', digest: ACCOUNT },
    at: AT,
    referrerIsSelf: false,
    disposableEmail: false,
    machineGeneratedEmail: 0,
    time: timeFacts(),
    ...change.input,
    history: {
      devices: [
        fakeSnapshot('device', 'device-1', {
          ...change.device,
          links: { ...SHIPPED_ELSEWHERE, ...change.device?.links },
        }),
      ],
      phones: [fakeSnapshot('phone', 'phone-1', change.phone)],
      addresses: [fakeSnapshot('address', 'address-1', change.address)],
      emails: [fakeSnapshot('email', EMAIL, change.email)],
      emailDomains: [fakeSnapshot('emailDomain', 'example.com', change.domain)],
      signupTraffic: [fakeSnapshot('signupTraffic', '0', change.traffic)],
      surname: change.surname && fakeSnapshot('surname', 'surname-1', change.surname),
      fullName: change.fullName === undefined ? undefined : { kind: 'fullName', digest: change.fullName },
      emailStems: (change.emailStems ?? []).map((digest) => ({ kind: 'emailStem', digest })),
      referrer: change.referrer && fakeSnapshot('customer', 'referrer-1', change.referrer),
    },
  };
}

/** The account's own device: linked both ways, as after its signup. */
const OWN_DEVICE: FakeHistory = { links: { customer: [ACCOUNT] } };
const ACCOUNT_WITH_DEVICE: FakeHistory = { links: { device: ['device-1'] } };

/** How a test changes an account event: the account's and the device's histories, the input's facts. */
interface AccountEventChange<Input> {
  account?: FakeHistory;
  device?: FakeHistory;
  input?: Partial<Omit<Input, 'history'>>;
}

/** ACCOUNT and its own device, changed as the test says. */
const accountEvent = ({ account, device }: AccountEventChange<unknown>) => ({
  customer: { kind: 'customer', digest: ACCOUNT } as const,
  time: timeFacts(),
  history: {
    customer: fakeSnapshot('customer', ACCOUNT, { ...ACCOUNT_WITH_DEVICE, ...account }),
    devices: [fakeSnapshot('device', 'device-1', { ...OWN_DEVICE, ...device })],
  },
});

/** A successful login of ACCOUNT from its own device, without MFA on an account that never used it. */
export const login = (change: AccountEventChange<LoginScoringInput> = {}): LoginScoringInput => ({
  success: true,
  mfaUsed: false,
  ...accountEvent(change),
  ...change.input,
});

/** A low-risk address change of ACCOUNT from its own device. */
export const accountUpdate = (change: AccountEventChange<AccountScoringInput> = {}): AccountScoringInput => ({
  changeType: 'ADDRESS_ADD',
  risky: false,
  ...accountEvent(change),
  ...change.input,
});
