import type { IdentityRef } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { accountDeviceFacts, otherAccountsOf } from './account-devices.ts';
import { type IdentityTimeFacts, identityTimeSignals } from './identity-time.ts';
import { fired, plural, type Signals, saturating } from './signal.ts';
import { type WatchFacts, watchedIdentitySignals } from './watched-identity.ts';

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

export function accountSignals(input: AccountScoringInput): Signals {
  const { history, risky, customer } = input;
  const newDeviceLogins = history.customer.count(METRIC.newDeviceLogins);
  const failures = history.customer.count(METRIC.loginFailures).h24;
  const riskyRecently = history.customer.count(METRIC.riskyAccountChanges).h1;
  const { newDevice, otherAccounts } = accountDeviceFacts(customer, history.customer, history.devices);
  const deviceAbuse = Math.max(
    0,
    ...history.devices
      .filter((d) => otherAccountsOf(d, customer) > 0)
      .map(
        (d) =>
          d.count(METRIC.accountEventDeclines).d30 +
          d.count(METRIC.lostChargebacks).d365 +
          d.count(METRIC.abusiveReturns).d365,
      ),
  );

  return fired({
    ...watchedIdentitySignals(input.watch),
    ...identityTimeSignals(input.time, {
      eventWord: 'account update',
      young: 'customer',
      counted: ['customersPerDevice'],
    }),
    riskyChange: risky ? { value: 1, evidence: `${input.changeType} is a high-risk change` } : undefined,
    riskyChangeAfterNewDeviceLogin:
      risky && newDeviceLogins.h24 > 0
        ? {
            // Within the hour is the takeover pattern; later the same day still counts, less.
            value: newDeviceLogins.h1 > 0 ? 1 : 0.5,
            evidence: `shortly after a login from a new device (${newDeviceLogins.h1 > 0 ? 'last hour' : 'last 24 hours'})`,
          }
        : undefined,
    riskyChangeAfterFailures:
      risky && failures > 0
        ? {
            value: saturating(failures),
            evidence: `after ${plural(failures, 'failed login')} in the last 24 hours`,
          }
        : undefined,
    riskyChangesLastHour:
      risky && riskyRecently > 0
        ? {
            value: saturating(riskyRecently),
            evidence: `${plural(riskyRecently, 'other high-risk change')} in the last hour`,
          }
        : undefined,
    deviceNotSeenForAccount: newDevice
      ? { value: 1, evidence: 'device never seen for this account' }
      : undefined,
    deviceAbuseOnOtherAccounts:
      deviceAbuse > 0
        ? {
            value: saturating(deviceAbuse),
            evidence: `device linked to other accounts with ${plural(deviceAbuse, 'abuse signal')}`,
          }
        : undefined,
    deviceSharedWithOtherAccounts:
      otherAccounts > 0
        ? {
            value: saturating(otherAccounts),
            evidence: `device used by ${plural(otherAccounts, 'other account')}`,
          }
        : undefined,
  });
}
