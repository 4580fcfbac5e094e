import type { IdentityRef } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { type IdentityTimeFacts, identityTimeSignals } from './identity-time.ts';
import { fired, KIND_WORDS, maxCount, maxOtherLinks, plural, type Signals, saturating } from './signal.ts';
import { type WatchFacts, watchedIdentitySignals } from './watched-identity.ts';
import {
  freshAccountsSignal,
  SIGNUP_ACCOUNT_PACE_SECONDS,
  youngSharedIdentity,
} from './young-shared-identity.ts';

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
    referrer: IdentitySnapshot | undefined;
  };
}

/** Per kind, how much sharing it with the referrer says: a household shares an address honestly. */
const SELF_REFERRAL_WEIGHT = { device: 1, phone: 1, address: 0.5 } as const;
/**
 * A small domain's signups in the last hour look like a farm when there are at least this many and
 * they run this many times above the domain's own hourly rate of the past month (a company domain
 * with steady signups is not a burst).
 */
const DOMAIN_BURST_FLOOR = 5;
const DOMAIN_BURST_FACTOR = 10;
const HOURS_IN_30_DAYS = 30 * 24;

export function signupSignals(input: SignupScoringInput): Signals {
  const { history, customer } = input;
  const own = [customer];
  const deviceAccounts = maxOtherLinks(history.devices, 'customer', own);
  const phoneAccounts = maxOtherLinks(history.phones, 'customer', own);
  const addressAccounts = maxOtherLinks(history.addresses, 'customer', own);
  const emailAccounts = maxOtherLinks(history.emails, 'customer', own);
  const deviceLastHour = maxCount(history.devices, METRIC.signups, 'h1').count;
  const deviceEarlierToday = Math.max(
    0,
    ...history.devices.map((s) => s.count(METRIC.signups).h24 - s.count(METRIC.signups).h1),
  );
  const domainBurst = Math.max(0, ...history.emailDomains.map(domainBurstOf));
  const shared = sharedWithReferrer(input);
  const farm = youngSharedIdentity(
    [...history.devices, ...history.phones],
    'customer',
    own,
    input.at,
    SIGNUP_ACCOUNT_PACE_SECONDS,
  );
  const referrals = history.referrer?.count(METRIC.referrals).h24 ?? 0;

  return fired({
    ...watchedIdentitySignals(input.watch),
    ...identityTimeSignals(input.time, {
      eventWord: 'signup',
      counted: ['customersPerDevice', 'emailsPerDevice', 'customersPerAddress'],
    }),
    freshAccountsOnYoungIdentity: freshAccountsSignal(farm, 'customer'),
    deviceSharedWithOtherAccounts:
      deviceAccounts > 0
        ? {
            value: saturating(deviceAccounts),
            evidence: `device already behind ${plural(deviceAccounts, 'other account')}`,
          }
        : undefined,
    phoneSharedWithOtherAccounts:
      phoneAccounts > 0
        ? {
            value: saturating(phoneAccounts),
            evidence: `phone already behind ${plural(phoneAccounts, 'other account')}`,
          }
        : undefined,
    addressSharedWithOtherAccounts:
      addressAccounts > 0
        ? {
            value: saturating(addressAccounts),
            evidence: `address already behind ${plural(addressAccounts, 'other account')}`,
          }
        : undefined,
    emailSharedWithOtherAccounts:
      emailAccounts > 0
        ? {
            value: saturating(emailAccounts),
            evidence: `e-mail already behind ${plural(emailAccounts, 'other account')}`,
          }
        : undefined,
    signupsFromDeviceLastHour:
      deviceLastHour > 0
        ? {
            value: saturating(deviceLastHour),
            evidence: `${plural(deviceLastHour, 'earlier signup')} from this device in the last hour`,
          }
        : undefined,
    signupsFromDeviceEarlierToday:
      deviceEarlierToday > 0
        ? {
            value: saturating(deviceEarlierToday),
            evidence: `${plural(deviceEarlierToday, 'earlier signup')} from this device in the last 24 hours`,
          }
        : undefined,
    signupsOnEmailDomainLastHour:
      domainBurst > 0
        ? {
            value: saturating(domainBurst - DOMAIN_BURST_FLOOR + 1),
            evidence: `burst of ${plural(domainBurst, 'signup')} on this e-mail domain in the last hour`,
          }
        : undefined,
    selfReferral:
      shared.value > 0
        ? { value: shared.value, evidence: `referee shares ${shared.words} with the referrer` }
        : undefined,
    referrerReferralBurst:
      referrals >= 2
        ? {
            value: saturating(referrals - 1),
            evidence: `referrer brought ${plural(referrals, 'other signup')} in the last 24 hours`,
          }
        : undefined,
    disposableEmail: input.disposableEmail ? { value: 1, evidence: 'disposable e-mail domain' } : undefined,
    machineGeneratedEmail:
      input.machineGeneratedEmail > 0
        ? { value: input.machineGeneratedEmail, evidence: 'e-mail looks machine-generated' }
        : undefined,
  });
}

/** Earlier signups on a domain in the last hour when they are a burst against its usual rate, else 0. */
function domainBurstOf(domain: IdentitySnapshot): number {
  const counts = domain.count(METRIC.signups);
  const usualPerHour = (counts.d30 - counts.h1) / HOURS_IN_30_DAYS;
  return counts.h1 >= DOMAIN_BURST_FLOOR && counts.h1 >= DOMAIN_BURST_FACTOR * usualPerHour ? counts.h1 : 0;
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
