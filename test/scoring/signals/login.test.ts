import { METRIC } from '../../../shared/identity/metrics.ts';
import { loginSignals, OWNER_DEVICE_DISCOUNT } from '../../../shared/scoring/signals/login-signals.ts';
import type { WatchFacts } from '../../../shared/scoring/signals/watched-identity.ts';
import { login } from '../scoring-inputs.ts';
import { describeSignalRows, fires, sharedRows, silent } from '../signal-rows.ts';
import { countIn } from '../snapshots.ts';

const withTime = (time: ReturnType<typeof login>['time']) => login({ input: { time } });
const failures = (windows: Record<string, number>) => ({
  links: { device: ['device-1'] },
  counts: { [METRIC.loginFailures]: windows },
});
const failed = { success: false };
/** An account whose trusted device is another one: the login comes from a device new to it. */
const elsewhere = { links: { device: ['device-0'] } };
const mfaHabit = (logins: number, withMfa: number) => ({
  links: { device: ['device-1'] },
  counts: { [METRIC.loginSuccesses]: { lifetime: logins }, [METRIC.mfaLogins]: { lifetime: withMfa } },
});

const withWatch = (watch: WatchFacts) => login({ input: { watch } });
describeSignalRows('login', loginSignals, {
  watchedIdentityNewCustomer: sharedRows.watchedIdentityNewCustomer(withWatch, 'login'),
  watchedIdentityKnownCustomer: sharedRows.watchedIdentityKnownCustomer(withWatch, 'login'),
  newIdentitiesAroundLastHour: sharedRows.newIdentitiesAroundLastHour(
    withTime,
    { pair: 'customersPerDevice', holder: 'device', others: 'accounts' },
    'emailsPerDevice',
  ),
  accountFailuresLastHour: [
    fires(
      'a failed attempt after 3 failures',
      login({ account: failures(countIn('h1', 3)), input: failed }),
      2,
      '3 failed logins on this account in the last hour',
    ),
    fires(
      'the owner succeeding from its trusted device: discounted',
      login({ account: failures(countIn('h1', 3)) }),
      OWNER_DEVICE_DISCOUNT * 2,
      '3 failed logins on this account in the last hour',
    ),
    silent('no failures', login()),
  ],
  accountFailuresEarlierToday: [
    fires(
      '4 in the day, 1 of them in the hour',
      login({ account: failures({ h1: 1, h24: 4, d30: 4, d365: 4, lifetime: 4 }), input: failed }),
      2,
      '4 failed logins on this account in the last 24 hours',
    ),
    silent(
      'all of the day’s in the last hour',
      login({ account: failures(countIn('h1', 2)), input: failed }),
    ),
  ],
  successAfterFailures: [
    fires(
      'a success from a new device after 3 failures',
      login({ account: { ...elsewhere, counts: { [METRIC.loginFailures]: countIn('h1', 3) } } }),
      1,
      'success after 3 failed attempts',
    ),
    silent('the owner from its trusted device', login({ account: failures(countIn('h1', 3)) })),
    silent(
      'the owner from its trusted device after its own typos',
      login({
        account: failures(countIn('h1', 3)),
        device: { counts: { [METRIC.loginFailures]: countIn('h1', 3) } },
      }),
    ),
    silent('another failure', login({ account: failures(countIn('h1', 3)), input: failed })),
  ],
  deviceAccountsTried: [
    fires(
      'the device tried 2 accounts besides this one',
      login({
        device: {
          links: { customer: ['customer-1'] },
          counts: { [METRIC.deviceAccountsTried]: countIn('h24', 3) },
        },
      }),
      Math.log2(3),
      'device tried 2 other accounts in the last 24 hours',
    ),
    silent(
      'the device tried only this account',
      login({
        device: {
          links: { customer: ['customer-1'] },
          counts: { [METRIC.deviceAccountsTried]: countIn('h24', 1) },
        },
      }),
    ),
  ],
  deviceFailuresLastHour: [
    fires(
      '2 failures from the device, then another',
      login({ device: { counts: { [METRIC.loginFailures]: countIn('h1', 2) } }, input: failed }),
      Math.log2(3),
      '2 failed logins from this device in the last hour',
    ),
    fires(
      'the owner’s typos on its trusted device: discounted',
      login({ device: { counts: { [METRIC.loginFailures]: countIn('h1', 3) } } }),
      OWNER_DEVICE_DISCOUNT * 2,
      '3 failed logins from this device in the last hour',
    ),
    silent('none', login()),
  ],
  newDeviceForAccount: [
    fires(
      'a success from a device the account never used',
      login({ account: elsewhere, device: {} }),
      1,
      'success from a device never seen for this account',
    ),
    silent('a failed attempt from it', login({ account: elsewhere, device: {}, input: failed })),
    silent('an account with no device yet', login({ account: {}, device: {} })),
  ],
  mfaNotUsedWhereUsual: [
    fires(
      'no MFA on an account that always used it',
      login({ account: mfaHabit(5, 5) }),
      1,
      'MFA not used on an account that usually uses it',
    ),
    silent('MFA used', login({ account: mfaHabit(5, 5), input: { mfaUsed: true } })),
    silent('MFA on 3 of 5 logins only', login({ account: mfaHabit(5, 3) })),
  ],
});
