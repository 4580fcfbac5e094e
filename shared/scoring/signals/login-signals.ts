import type { IdentityRef } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import { plural } from '../../plural.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { accountDeviceFacts } from './account-devices.ts';
import type { IdentityTimeFacts } from './identity-time.ts';
import { newIdentitiesAroundLastHour } from './identity-time.ts';
import type { SignalDeclaration, Signals } from './signal.ts';
import {
  clampUnit,
  declareSignal,
  maxCount,
  perEvent,
  SILENT_BELOW,
  saturating,
  signalsOf,
} from './signal.ts';
import { flagSignal } from './signal-shapes.ts';
import {
  type WatchFacts,
  watchedIdentityKnownCustomer,
  watchedIdentityNewCustomer,
} from './watched-identity.ts';

/** What scoring needs to know about a login attempt: the attempt and the history it touches. */
export interface LoginScoringInput {
  /** The event's identities on the watch list, and when its customer was first seen. */
  watch?: WatchFacts;
  success: boolean;
  mfaUsed: boolean;
  /** Ages, time since the previous event and velocity, at the event's own time. */
  time: IdentityTimeFacts;
  customer: IdentityRef;
  history: {
    customer: IdentitySnapshot;
    devices: readonly IdentitySnapshot[];
  };
}

/** Failures right before a success that make the success itself suspect (a typo or two is not). */
export const SUCCESS_AFTER_FAILURES_FLOOR = 3;
/**
 * MFA is this account's habit from this many successful logins before, as far as their share with
 * MFA shows: rising from 0 at 60 % to 1 at 90 % (80 % counts two thirds).
 */
export const MFA_HABIT_MIN_LOGINS = 2;
export const MFA_SHARE_RAMP = { from: 0.6, to: 0.9 } as const;
/**
 * Weight left to the failures (the account's and the device's) when the success comes from a device
 * the account trusts: the owner's device, whose own failures are the owner's typos (on a household's
 * shared device, a housemate's), and whose success says the others' failures were an attack on the
 * account that the owner should not be declined for. A takeover or a stuffer succeeds from a device
 * the account never trusted.
 */
export const OWNER_DEVICE_DISCOUNT = 0.3;

/** How the attempt's devices relate to the account, and whether the owner is the one logging in. */
const devicesOf = perEvent((input: LoginScoringInput) => {
  const { history } = input;
  const facts = accountDeviceFacts(input.customer, history.customer, history.devices);
  const deviceFailures = maxCount(history.devices, METRIC.loginFailures, 'h1').count;
  const ownerDevice = input.success && facts.trustedDevices.length > 0;
  return { ...facts, deviceFailures, ownerDevice, failureWeight: ownerDevice ? OWNER_DEVICE_DISCOUNT : 1 };
});

const accountFailures = ({ history }: LoginScoringInput) => history.customer.count(METRIC.loginFailures);

/** A login attempt's signals, in the order a decision records them. */
export const LOGIN_SIGNALS = [
  watchedIdentityNewCustomer,
  watchedIdentityKnownCustomer,
  // Sites log a new account in right after its signup: speed and youth say nothing on a login.
  newIdentitiesAroundLastHour(['customersPerDevice']),
  declareSignal('accountFailuresLastHour', (input: LoginScoringInput) => {
    const failures = accountFailures(input).h1;
    if (failures <= 0) return undefined;
    return {
      value: devicesOf(input).failureWeight * saturating(failures),
      evidence: `${plural(failures, 'failed login')} on this account in the last hour`,
    };
  }),
  declareSignal('accountFailuresEarlierToday', (input: LoginScoringInput) => {
    const failures = accountFailures(input);
    if (failures.h24 - failures.h1 <= 0) return undefined;
    return {
      value: devicesOf(input).failureWeight * saturating(failures.h24 - failures.h1),
      evidence: `${plural(failures.h24, 'failed login')} on this account in the last 24 hours`,
    };
  }),
  declareSignal('successAfterFailures', (input: LoginScoringInput) => {
    const failures = accountFailures(input).h1;
    if (!input.success || devicesOf(input).ownerDevice || failures < SUCCESS_AFTER_FAILURES_FLOOR)
      return undefined;
    return { value: 1, evidence: `success after ${plural(failures, 'failed attempt')}` };
  }),
  declareSignal('deviceAccountsTried', (input: LoginScoringInput) => {
    const { devicesNewToAccount } = devicesOf(input);
    // Accounts each device tried in 24 h besides this one (a first try here is not counted yet).
    const tried = Math.max(
      0,
      ...input.history.devices.map(
        (d) => d.count(METRIC.deviceAccountsTried).h24 - (devicesNewToAccount.includes(d) ? 0 : 1),
      ),
    );
    if (tried <= 0) return undefined;
    return {
      value: saturating(tried),
      evidence: `device tried ${plural(tried, 'other account')} in the last 24 hours`,
    };
  }),
  declareSignal('deviceFailuresLastHour', (input: LoginScoringInput) => {
    const { deviceFailures, failureWeight } = devicesOf(input);
    if (deviceFailures <= 0) return undefined;
    return {
      value: failureWeight * saturating(deviceFailures),
      evidence: `${plural(deviceFailures, 'failed login')} from this device in the last hour`,
    };
  }),
  flagSignal(
    'newDeviceForAccount',
    (input: LoginScoringInput) => input.success && devicesOf(input).newDevice,
    'success from a device never seen for this account',
  ),
  declareSignal('mfaNotUsedWhereUsual', ({ success, mfaUsed, history }: LoginScoringInput) => {
    if (!success || mfaUsed) return undefined;
    const successes = history.customer.count(METRIC.loginSuccesses).lifetime;
    const mfaShare = successes > 0 ? history.customer.count(METRIC.mfaLogins).lifetime / successes : 0;
    const habit =
      clampUnit(successes - MFA_HABIT_MIN_LOGINS + 1) *
      clampUnit((mfaShare - MFA_SHARE_RAMP.from) / (MFA_SHARE_RAMP.to - MFA_SHARE_RAMP.from));
    return habit >= SILENT_BELOW
      ? { value: habit, evidence: 'MFA not used on an account that usually uses it' }
      : undefined;
  }),
] as const satisfies readonly SignalDeclaration<LoginScoringInput>[];

export function loginSignals(input: LoginScoringInput): Signals {
  return signalsOf(LOGIN_SIGNALS, input);
}
