import type { IdentityRef } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { accountDeviceFacts } from './account-devices.ts';
import { type IdentityTimeFacts, identityTimeSignals } from './identity-time.ts';
import { fired, maxCount, plural, type Signals, saturating } from './signal.ts';
import { type WatchFacts, watchedIdentitySignals } from './watched-identity.ts';

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
const SUCCESS_AFTER_FAILURES_FLOOR = 3;
/** Prior successful logins needed before "MFA is usual for this account" means anything. */
const MFA_HABIT_MIN_LOGINS = 2;
const MFA_HABIT_SHARE = 0.8;
/**
 * Weight left to the account's failures when the success comes from a device the account trusts and
 * that failed nothing itself: the failures were someone else's, and the owner logging in during an
 * attack on the account should not be declined for it.
 */
const OWNER_DEVICE_DISCOUNT = 0.3;

export function loginSignals(input: LoginScoringInput): Signals {
  const { history } = input;
  const failures = history.customer.count(METRIC.loginFailures);
  const { newDevice, devicesNewToAccount, trustedDevices } = accountDeviceFacts(
    input.customer,
    history.customer,
    history.devices,
  );
  // Accounts each device tried in 24 h besides this one (a first try here is not counted yet).
  const accountsTried = Math.max(
    0,
    ...history.devices.map(
      (d) => d.count(METRIC.deviceAccountsTried).h24 - (devicesNewToAccount.includes(d) ? 0 : 1),
    ),
  );
  const deviceFailures = maxCount(history.devices, METRIC.loginFailures, 'h1').count;
  const ownerDevice = input.success && trustedDevices.length > 0 && deviceFailures === 0;
  const failureWeight = ownerDevice ? OWNER_DEVICE_DISCOUNT : 1;
  const successes = history.customer.count(METRIC.loginSuccesses).lifetime;
  const mfaShare = successes > 0 ? history.customer.count(METRIC.mfaLogins).lifetime / successes : 0;

  return fired({
    ...watchedIdentitySignals(input.watch),
    ...identityTimeSignals(input.time, {
      eventWord: 'login',
      // Sites log a new account in right after its signup: speed and youth say nothing on a login.
      counted: ['customersPerDevice'],
    }),
    accountFailuresLastHour:
      failures.h1 > 0
        ? {
            value: failureWeight * saturating(failures.h1),
            evidence: `${plural(failures.h1, 'failed login')} on this account in the last hour`,
          }
        : undefined,
    accountFailuresEarlierToday:
      failures.h24 - failures.h1 > 0
        ? {
            value: failureWeight * saturating(failures.h24 - failures.h1),
            evidence: `${plural(failures.h24, 'failed login')} on this account in the last 24 hours`,
          }
        : undefined,
    successAfterFailures:
      input.success && !ownerDevice && failures.h1 >= SUCCESS_AFTER_FAILURES_FLOOR
        ? { value: 1, evidence: `success after ${plural(failures.h1, 'failed attempt')}` }
        : undefined,
    deviceAccountsTried:
      accountsTried > 0
        ? {
            value: saturating(accountsTried),
            evidence: `device tried ${plural(accountsTried, 'other account')} in the last 24 hours`,
          }
        : undefined,
    deviceFailuresLastHour:
      deviceFailures > 0
        ? {
            value: saturating(deviceFailures),
            evidence: `${plural(deviceFailures, 'failed login')} from this device in the last hour`,
          }
        : undefined,
    newDeviceForAccount:
      input.success && newDevice
        ? { value: 1, evidence: 'success from a device never seen for this account' }
        : undefined,
    mfaNotUsedWhereUsual:
      input.success && !input.mfaUsed && successes >= MFA_HABIT_MIN_LOGINS && mfaShare >= MFA_HABIT_SHARE
        ? { value: 1, evidence: 'MFA not used on an account that usually uses it' }
        : undefined,
  });
}
