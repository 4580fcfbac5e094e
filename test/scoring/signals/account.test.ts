import { METRIC } from '../../../shared/identity/metrics.ts';
import { accountSignals } from '../../../shared/scoring/signals/account-signals.ts';
import type { WatchFacts } from '../../../shared/scoring/signals/watched-identity.ts';
import { ACCOUNT, accountUpdate } from '../scoring-inputs.ts';
import { describeSignalRows, fires, sharedRows, silent } from '../signal-rows.ts';
import { countIn, type FakeHistory } from '../snapshots.ts';

const withTime = (time: ReturnType<typeof accountUpdate>['time']) => accountUpdate({ input: { time } });
const risky = { changeType: 'PAYOUT_CHANGE', risky: true };
const accountCounts = (metric: string, windows: Record<string, number>) => ({
  links: { device: ['device-1'] },
  counts: { [metric]: windows },
});
/** An account whose latest login from a device new to it was `seconds` before the change. */
const sinceNewDeviceLogin = (seconds: number): FakeHistory => ({
  links: { device: ['device-1'] },
  counts: { [METRIC.newDeviceLogins]: countIn('d30', 1) },
  latest: { [METRIC.newDeviceLogins]: seconds },
});
/** A signal only a high-risk change fires: on the account's `history`, and not on a low-risk change. */
const riskyAfter = (label: string, history: FakeHistory, value: number, evidence: string) => [
  fires(label, accountUpdate({ account: history, input: risky }), value, evidence),
  silent('a low-risk change after the same', accountUpdate({ account: history })),
];
/** A device other accounts used too, with declines and chargebacks on it. */
const abusedDevice = (accounts: string[]) => ({
  links: { customer: accounts },
  counts: {
    [METRIC.accountEventDeclines]: countIn('d30', 2),
    [METRIC.lostChargebacks]: countIn('d365', 1),
  },
});

const withWatch = (watch: WatchFacts) => accountUpdate({ input: { watch } });
describeSignalRows('account', accountSignals, {
  watchedIdentityNewCustomer: sharedRows.watchedIdentityNewCustomer(withWatch, 'account'),
  watchedIdentityKnownCustomer: sharedRows.watchedIdentityKnownCustomer(withWatch, 'account'),
  scriptSpeedAfterPreviousEvent: sharedRows.scriptSpeedAfterPreviousEvent(withTime, 'account update'),
  youngIdentity: sharedRows.youngIdentity(withTime, 'customer', 'account'),
  newIdentitiesAroundLastHour: sharedRows.newIdentitiesAroundLastHour(
    withTime,
    { pair: 'customersPerDevice', holder: 'device', others: 'accounts' },
    'emailsPerCard',
  ),
  riskyChange: [
    fires('a payout change', accountUpdate({ input: risky }), 1, 'PAYOUT_CHANGE is a high-risk change'),
    silent('an address added', accountUpdate()),
  ],
  riskyChangeAfterNewDeviceLogin: [
    fires(
      'ten minutes after a new-device login: almost fully',
      accountUpdate({ account: sinceNewDeviceLogin(600), input: risky }),
      1 / (1 + (600 / 21_600) ** 4),
      'within 10 minutes of a login from a new device',
    ),
    fires(
      'four hours after: still the session an attacker got in with',
      accountUpdate({ account: sinceNewDeviceLogin(4 * 3600), input: risky }),
      1 / (1 + (4 / 6) ** 4),
      'within 4 hours of a login from a new device',
    ),
    fires(
      'six hours after: half',
      accountUpdate({ account: sinceNewDeviceLogin(6 * 3600), input: risky }),
      0.5,
      'within 6 hours of a login from a new device',
    ),
    silent('the next day', accountUpdate({ account: sinceNewDeviceLogin(26 * 3600), input: risky })),
    fires(
      'a login timed a minute after the change (two clocks): the same',
      accountUpdate({ account: sinceNewDeviceLogin(-60), input: risky }),
      1 / (1 + (60 / 21_600) ** 4),
      'within 60 seconds of a login from a new device',
    ),
    silent('a low-risk change after one', accountUpdate({ account: sinceNewDeviceLogin(600) })),
  ],
  riskyChangeAfterFailures: riskyAfter(
    'after 3 failed logins today',
    accountCounts(METRIC.loginFailures, countIn('h24', 3)),
    2,
    'after 3 failed logins in the last 24 hours',
  ),
  riskyChangesLastHour: riskyAfter(
    'a second high-risk change in the hour',
    accountCounts(METRIC.riskyAccountChanges, countIn('h1', 1)),
    1,
    '1 other high-risk change in the last hour',
  ),
  deviceNotSeenForAccount: [
    fires(
      'a device the account never used',
      accountUpdate({ account: { links: { device: ['device-0'] } }, device: {} }),
      1,
      'device never seen for this account',
    ),
    silent('the account’s own device', accountUpdate()),
  ],
  deviceAbuseOnOtherAccounts: [
    fires(
      '2 declines and 1 chargeback on a device 4 other accounts used: 3 of them beyond a housemate',
      accountUpdate({ device: abusedDevice([ACCOUNT, 'a1', 'a2', 'a3', 'a4']) }),
      2 * 0.75,
      'device linked to other accounts with 3 abuse signals',
    ),
    silent(
      'the same on a device one other account used: a housemate’s',
      accountUpdate({ device: abusedDevice([ACCOUNT, 'a1']) }),
    ),
    silent('the same on a device only this account used', accountUpdate({ device: abusedDevice([ACCOUNT]) })),
  ],
  deviceSharedWithOtherAccounts: [
    fires(
      'the device used by 2 other accounts: one is a housemate',
      accountUpdate({ device: { links: { customer: [ACCOUNT, 'a1', 'a2'] } } }),
      1,
      'device used by 2 other accounts',
    ),
    silent(
      'one other account: a housemate',
      accountUpdate({ device: { links: { customer: [ACCOUNT, 'a1'] } } }),
    ),
    silent('only by this account', accountUpdate()),
  ],
});
