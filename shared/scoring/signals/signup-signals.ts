import type { IdentityRef } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import { plural } from '../../plural.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { type DomainBurst, domainBurst, signupCounts } from './email-domain-burst.ts';
import { signupHousehold } from './household.ts';
import type { IdentityTimeFacts } from './identity-time.ts';
import {
  durationWords,
  newIdentitiesAroundLastHour,
  scriptSpeedAfterPreviousEvent,
} from './identity-time.ts';
import type { Signal, SignalDeclaration, Signals } from './signal.ts';
import {
  declareSignal,
  fadeAround,
  KIND_WORDS,
  maxCount,
  perEvent,
  SILENT_BELOW,
  saturating,
  signalsOf,
} from './signal.ts';
import { flagSignal, othersLinked } from './signal-shapes.ts';
import {
  type WatchFacts,
  watchedIdentityKnownCustomer,
  watchedIdentityNewCustomer,
} from './watched-identity.ts';
import { freshAccountsOnYoungIdentity, SIGNUP_ACCOUNT_PACE_SECONDS } from './young-shared-identity.ts';

/** What scoring needs to know about a signup: facts from the request and its identities' history. */
export interface SignupScoringInput {
  /** The event's identities on the watch list, and when its customer was first seen. */
  watch?: WatchFacts;
  customer: IdentityRef;
  /** The signup's own time (epoch ms): identity ages are read as of it. */
  at: number;
  /** The signup names its own customerId as referrer. */
  referrerIsSelf: boolean;
  disposableEmail: boolean;
  /** 0..1, from machineGeneratedScore. */
  machineGeneratedEmail: number;
  /** Ages, time since the previous event and velocity, at the event's own time. */
  time: IdentityTimeFacts;
  history: {
    devices: readonly IdentitySnapshot[];
    phones: readonly IdentitySnapshot[];
    addresses: readonly IdentitySnapshot[];
    emails: readonly IdentitySnapshot[];
    emailDomains: readonly IdentitySnapshot[];
    /** The account holder's surname, when the signup gives one. */
    surname: IdentitySnapshot | undefined;
    /** The account holder's first name and surname together, when the signup gives both. */
    fullName: IdentityRef | undefined;
    /** The stems of the signup's e-mails (email-patterns.ts `emailStem`). */
    emailStems: readonly IdentityRef[];
    /** Every shard of the merchant's signup counter: the total a domain's share is taken of. */
    signupTraffic: readonly IdentitySnapshot[];
    referrer: IdentitySnapshot | undefined;
  };
}

/** Per kind, how much sharing it with the referrer says: a household shares an address honestly. */
export const SELF_REFERRAL_WEIGHT = { device: 1, phone: 1, address: 0.5 } as const;
const ownAccount = ({ customer }: SignupScoringInput) => [customer];

/** The merchant's signups, every shard of its counter summed. */
const merchantSignups = perEvent(({ history }: SignupScoringInput) => signupCounts(history.signupTraffic));

/** Other accounts on the signup's device that its household explains (household.ts). */
const householdOf = perEvent((input: SignupScoringInput) =>
  signupHousehold({ ...input.history, merchantSignups: merchantSignups(input).lifetime }),
);

/** Earlier signups from the signup's device: in the last hour, and in the 24 hours before it. */
const deviceSignups = perEvent(({ history }: SignupScoringInput) => ({
  lastHour: maxCount(history.devices, METRIC.signups, 'h1').count,
  earlier: Math.max(
    0,
    ...history.devices.map((s) => s.count(METRIC.signups).h24 - s.count(METRIC.signups).h1),
  ),
}));

/** Other accounts already behind one of the signup's identities (`words`: the identity, `device`). */
const behindOtherAccounts = <Name extends string>(
  name: Name,
  words: string,
  holders: (input: SignupScoringInput) => readonly IdentitySnapshot[],
  explained?: (input: SignupScoringInput) => number,
) =>
  othersLinked(name, {
    holders,
    counted: 'customer',
    own: ownAccount,
    words: `${words} already behind`,
    ...(explained ? { explained } : {}),
  });

/**
 * `n` earlier signups from the signup's devices in the last `period` (`hour`, `24 hours`),
 * `explained` of them by its household: log2(1 + n - explained).
 */
const earlierSignups = (n: number, explained: number, period: string): Signal | undefined =>
  n > explained
    ? {
        value: saturating(n - explained),
        evidence: `${plural(n, 'earlier signup')} from this device in the last ${period}`,
      }
    : undefined;

/**
 * How long a device's scripted orders count against the accounts opened on it: fadeAround the time
 * since the latest, a month (half then, 6 % after two). A fingerprint changes within weeks (browser
 * and app updates, reinstalls), and what sent an order seconds after a signup is a script whoever
 * holds the device next.
 */
export const SCRIPTED_ORDERS_MEMORY_SECONDS = 30 * 86_400;

/**
 * Orders the signup's devices sent seconds after their account signed up (METRIC.scriptedOrders,
 * each weighed by how fast): log2(1 + weight) faded by the time since the latest, the most over its
 * devices. A person sharing a phone with the account before takes minutes from signup to checkout;
 * a bot opening accounts to order on stolen cards takes seconds, so its next account is no
 * housemate's.
 */
function scriptedOrdersFromDevice({ history }: SignupScoringInput): Signal | undefined {
  let best: { value: number; orders: number; since: number } | undefined;
  for (const device of history.devices) {
    const orders = device.count(METRIC.scriptedOrders).d365;
    const since = device.secondsSinceLatest(METRIC.scriptedOrders);
    if (orders <= 0 || since === undefined) continue;
    const value = saturating(orders) * fadeAround(since, SCRIPTED_ORDERS_MEMORY_SECONDS);
    if (!best || value > best.value) best = { value, orders, since: Math.max(0, since) };
  }
  if (!best || best.value < SILENT_BELOW) return undefined;
  return {
    value: best.value,
    evidence: `this device sent ${plural(Math.max(1, Math.round(best.orders)), 'order')} seconds after its account signed up, the latest ${durationWords(best.since)} ago`,
  };
}

/** None of the signup's addresses was used on the device: an account on it under another one came first. */
const newAddressOn = (device: IdentitySnapshot, { history }: SignupScoringInput) =>
  !history.emails.some((email) => device.isLinked('email', email.ref.digest));

/**
 * The signup's address is another of an earlier account's holder on its device: the device holds
 * the address's stem (the local part without separators and trailing digits, at any provider) with
 * none of the signup's own addresses. A household's members make theirs from their own names.
 */
const emailVariantOnDevice = (input: SignupScoringInput) =>
  input.history.devices.some(
    (device) =>
      input.history.emailStems.some((stem) => device.isLinked('emailStem', stem.digest)) &&
      newAddressOn(device, input),
  );

/**
 * The signup's whole name (first name and surname) is already on its device with none of its
 * addresses: the person behind an earlier account there, opening another under a new address. A
 * household's members carry first names of their own.
 */
const holderNameOnDevice = (input: SignupScoringInput) => {
  const { fullName, devices } = input.history;
  return (
    fullName !== undefined &&
    devices.some((device) => device.isLinked('fullName', fullName.digest) && newAddressOn(device, input))
  );
};

/** A signup's signals, in the order a decision records them. */
export const SIGNUP_SIGNALS = [
  watchedIdentityNewCustomer,
  watchedIdentityKnownCustomer,
  scriptSpeedAfterPreviousEvent('signup'),
  newIdentitiesAroundLastHour(['customersPerDevice', 'emailsPerDevice', 'customersPerAddress']),
  freshAccountsOnYoungIdentity({
    holders: ({ history }: SignupScoringInput) => [...history.devices, ...history.phones],
    counted: 'customer',
    own: ownAccount,
    paceSeconds: SIGNUP_ACCOUNT_PACE_SECONDS,
    household: householdOf,
  }),
  behindOtherAccounts(
    'deviceSharedWithOtherAccounts',
    'device',
    ({ history }) => history.devices,
    householdOf,
  ),
  declareSignal('scriptedOrdersFromDevice', scriptedOrdersFromDevice),
  behindOtherAccounts('phoneSharedWithOtherAccounts', 'phone', ({ history }) => history.phones),
  behindOtherAccounts('addressSharedWithOtherAccounts', 'address', ({ history }) => history.addresses),
  behindOtherAccounts('emailSharedWithOtherAccounts', 'e-mail', ({ history }) => history.emails),
  declareSignal('signupsFromDeviceLastHour', (input: SignupScoringInput) =>
    earlierSignups(deviceSignups(input).lastHour, householdOf(input), 'hour'),
  ),
  declareSignal('signupsFromDeviceEarlierToday', (input: SignupScoringInput) => {
    // The household's allowance goes first to the last hour's signups, the rest to earlier ones.
    const { lastHour, earlier } = deviceSignups(input);
    return earlierSignups(earlier, Math.max(0, householdOf(input) - lastHour), '24 hours');
  }),
  declareSignal('signupsOnEmailDomainLastHour', (input: SignupScoringInput) => {
    const merchant = merchantSignups(input);
    let burst: DomainBurst | undefined;
    for (const domain of input.history.emailDomains) {
      const found = domainBurst(signupCounts([domain]), merchant);
      if (!burst || found.value > burst.value) burst = found;
    }
    if (!burst || burst.value <= 0) return undefined;
    return {
      value: burst.value,
      evidence: `${plural(burst.signups, 'signup')} on this e-mail domain in the last hour, ${Math.round(burst.expected)} expected from its usual share of signups`,
    };
  }),
  declareSignal('selfReferral', (input: SignupScoringInput) => {
    const shared = sharedWithReferrer(input);
    if (shared.value <= 0) return undefined;
    return { value: shared.value, evidence: `referee shares ${shared.words} with the referrer` };
  }),
  declareSignal('referrerReferralBurst', ({ history }: SignupScoringInput) => {
    const referrals = history.referrer?.count(METRIC.referrals).h24 ?? 0;
    if (referrals < 2) return undefined;
    return {
      value: saturating(referrals - 1),
      evidence: `referrer brought ${plural(referrals, 'other signup')} in the last 24 hours`,
    };
  }),
  flagSignal(
    'emailVariantOnDevice',
    emailVariantOnDevice,
    'e-mail a variation of an address another account used on this device',
  ),
  flagSignal('holderNameOnDevice', holderNameOnDevice, 'name already on this device under another e-mail'),
  flagSignal(
    'disposableEmail',
    (input: SignupScoringInput) => input.disposableEmail,
    'disposable e-mail domain',
  ),
  declareSignal('machineGeneratedEmail', ({ machineGeneratedEmail }: SignupScoringInput) =>
    machineGeneratedEmail > 0
      ? { value: machineGeneratedEmail, evidence: 'e-mail looks machine-generated' }
      : undefined,
  ),
] as const satisfies readonly SignalDeclaration<SignupScoringInput>[];

export function signupSignals(input: SignupScoringInput): Signals {
  return signalsOf(SIGNUP_SIGNALS, input);
}

/** Which of the referee's device, phone and address the referrer's account is already linked to. */
function sharedWithReferrer(input: SignupScoringInput): { value: number; words: string } {
  if (input.referrerIsSelf) return { value: 2, words: 'its own account id' };
  const referrer = input.history.referrer;
  if (!referrer) return { value: 0, words: '' };
  const own = {
    device: input.history.devices,
    phone: input.history.phones,
    address: input.history.addresses,
  };
  const kinds = (['device', 'phone', 'address'] as const).filter((kind) =>
    own[kind].some((s) => referrer.isLinked(kind, s.ref.digest)),
  );
  const value = Math.min(
    2,
    kinds.reduce((sum, kind) => sum + SELF_REFERRAL_WEIGHT[kind], 0),
  );
  return { value, words: kinds.map((k) => `a ${KIND_WORDS[k]}`).join(', ') };
}
