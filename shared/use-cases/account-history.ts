import type { IdentityRef } from '../identity/identities.ts';
import { METRIC } from '../identity/metrics.ts';
import type { Decision } from '../scoring/decide.ts';
import type { HistoryChanges, IdentitySnapshot } from '../store/identity-history.ts';

/**
 * History moves shared by signups, logins and account updates, so the three keep the same meaning
 * for the counters they read from each other.
 */

/**
 * Links each device to the account it touched and counts a first touch as one more account tried
 * by the device (windowed, unlike the link set). Two racing first touches may both count: the
 * counter is an estimate, and the ADD keeps it commutative.
 */
export function recordDevicesOnAccount(
  changes: HistoryChanges,
  customer: IdentityRef,
  devices: readonly IdentitySnapshot[],
  devicesNewToAccount: readonly IdentitySnapshot[],
  at: number,
): void {
  for (const device of devices) changes.link(device.ref, [customer], at);
  for (const device of devicesNewToAccount) changes.add(device.ref, METRIC.deviceAccountsTried, 1, at);
}

/** A declined event marks its account and devices, which later account updates read as abuse. */
export function recordDecline(
  changes: HistoryChanges,
  decision: Decision,
  refs: readonly IdentityRef[],
  at: number,
): void {
  if (decision.decision === 'DECLINE') changes.addEach(refs, METRIC.accountEventDeclines, 1, at);
}
