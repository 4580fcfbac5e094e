import type { IdentityRef } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import { plural } from '../../plural.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { accountDeviceFacts, otherAccountsOf } from './account-devices.ts';
import { orderHousehold } from './household.ts';
import type { IdentityTimeFacts } from './identity-time.ts';
import {
  durationWords,
  newIdentitiesAroundLastHour,
  scriptSpeedAfterPreviousEvent,
  youngIdentity,
} from './identity-time.ts';
import type { SignalDeclaration, Signals } from './signal.ts';
import { declareSignal, fadeAround, SILENT_BELOW, saturating, signalsOf } from './signal.ts';
import { flagSignal, othersLinked } from './signal-shapes.ts';
import {
  type WatchFacts,
  watchedIdentityKnownCustomer,
  watchedIdentityNewCustomer,
} from './watched-identity.ts';

/** What scoring needs to know about an account update: the change and the account's recent logins. */
export interface AccountScoringInput {
  /** The event's identities on the watch list, and when its customer was first seen. */
  watch?: WatchFacts;
  changeType: string;
  risky: boolean;
  /** Ages, time since the previous event and velocity, at the event's own time. */
  time: IdentityTimeFacts;
  customer: IdentityRef;
  history: {
    customer: IdentitySnapshot;
    devices: readonly IdentitySnapshot[];
  };
}

/**
 * A takeover changes the account within the session it got in with: minutes, at most a few hours
 * (an attacker does not come back tomorrow to a door that may have been shut). A risky change counts
 * almost fully within three hours of a login from a device new to the account, half at six, hardly
 * at twelve, and not the next day: fadeAround(seconds between them, 6 hours).
 */
const NEW_DEVICE_SESSION_SECONDS = 6 * 3600;

/** Signals only a high-risk change can fire: `n` of something before it, log2(1 + n). */
const riskyAfter = <Name extends string>(
  name: Name,
  count: (history: AccountScoringInput['history']) => number,
  evidence: (n: number) => string,
) =>
  declareSignal(name, ({ risky, history }: AccountScoringInput) => {
    const n = risky ? count(history) : 0;
    return n > 0 ? { value: saturating(n), evidence: evidence(n) } : undefined;
  });

/**
 * Other accounts on the update's devices that its household explains: an update names no address, so
 * nothing tells its home and, like an order without one, the first other account is taken for a
 * housemate's (household.ts).
 */
const householdOthers = (devices: readonly IdentitySnapshot[]) => orderHousehold([], devices);

/** An account update's signals, in the order a decision records them. */
export const ACCOUNT_SIGNALS = [
  watchedIdentityNewCustomer,
  watchedIdentityKnownCustomer,
  scriptSpeedAfterPreviousEvent('account update'),
  youngIdentity('customer'),
  newIdentitiesAroundLastHour(['customersPerDevice']),
  flagSignal(
    'riskyChange',
    (input: AccountScoringInput) => input.risky,
    (input) => `${input.changeType} is a high-risk change`,
  ),
  declareSignal('riskyChangeAfterNewDeviceLogin', ({ risky, history }: AccountScoringInput) => {
    const since = history.customer.secondsSinceLatest(METRIC.newDeviceLogins);
    if (!risky || since === undefined) return undefined;
    // Either side of the login: a login timed by our clock and a change by the merchant's can land
    // in either order, seconds apart.
    const apart = Math.abs(since);
    const value = fadeAround(apart, NEW_DEVICE_SESSION_SECONDS);
    if (value < SILENT_BELOW) return undefined;
    return { value, evidence: `within ${durationWords(Math.round(apart))} of a login from a new device` };
  }),
  riskyAfter(
    'riskyChangeAfterFailures',
    (history) => history.customer.count(METRIC.loginFailures).h24,
    (n) => `after ${plural(n, 'failed login')} in the last 24 hours`,
  ),
  riskyAfter(
    'riskyChangesLastHour',
    (history) => history.customer.count(METRIC.riskyAccountChanges).h1,
    (n) => `${plural(n, 'other high-risk change')} in the last hour`,
  ),
  flagSignal(
    'deviceNotSeenForAccount',
    ({ customer, history }: AccountScoringInput) =>
      accountDeviceFacts(customer, history.customer, history.devices).newDevice,
    'device never seen for this account',
  ),
  declareSignal('deviceAbuseOnOtherAccounts', ({ customer, history }: AccountScoringInput) => {
    let worst = { abuse: 0, value: 0 };
    for (const device of history.devices) {
      const others = otherAccountsOf(device, customer);
      if (others <= 0) continue;
      const abuse =
        device.count(METRIC.accountEventDeclines).d30 +
        device.count(METRIC.lostChargebacks).d365 +
        device.count(METRIC.abusiveReturns).d365;
      // The device's abuse is its other accounts'; a housemate's (deviceSharedWithOtherAccounts'
      // allowance) is not this account's: it counts for the share of the others beyond them.
      const strangers = Math.max(0, others - householdOthers([device])) / others;
      const value = saturating(abuse) * strangers;
      if (value > worst.value) worst = { abuse, value };
    }
    if (worst.value < SILENT_BELOW) return undefined;
    return {
      value: worst.value,
      evidence: `device linked to other accounts with ${plural(worst.abuse, 'abuse signal')}`,
    };
  }),
  othersLinked('deviceSharedWithOtherAccounts', {
    holders: ({ history }: AccountScoringInput) => history.devices,
    counted: 'customer',
    own: ({ customer }) => [customer],
    words: 'device used by',
    explained: ({ history }) => householdOthers(history.devices),
  }),
] as const satisfies readonly SignalDeclaration<AccountScoringInput>[];

export function accountSignals(input: AccountScoringInput): Signals {
  return signalsOf(ACCOUNT_SIGNALS, input);
}
