import type { EventIdentities } from '../identity/account-identities.ts';
import type { IdentityRef } from '../identity/identities.ts';
import { METRIC } from '../identity/metrics.ts';
import { type Decision, toWireDecision } from '../scoring/decide.ts';
import type { IdentitySnapshot } from '../scoring/identity-snapshot.ts';
import { accountDeviceFacts } from '../scoring/signals/account-devices.ts';
import { identityTimeFacts } from '../scoring/signals/identity-time.ts';
import type { HistoryChanges } from '../store/identity-history.ts';
import type { DecisionContext } from './decision-context.ts';

/**
 * What signups, logins and account updates share: the account's history as they read it, the moves
 * they make on it (so the three keep one meaning for the counters they read from each other), and
 * the decision part of their responses.
 */

/** The account of a login or account update, its devices and what their history says, as of `at`. */
export function accountHistoryOf(context: DecisionContext, identities: EventIdentities, at: number) {
  const { customer } = identities;
  const account = context.snapshotsOf([customer])[0]!;
  const devices = context.snapshotsOf(identities.devices);
  return {
    customer,
    account,
    devices,
    deviceFacts: accountDeviceFacts(customer, account, devices),
    time: identityTimeFacts(context.snapshots, customer, at),
  };
}

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

/**
 * The decision part signup, login and account-update responses share (docs/api.md): a capital
 * `Decisions` array whose entries hold `decisions` arrays of Decision objects.
 */
export function decisionsPart(decision: Decision) {
  return { Decisions: [{ decisions: [toWireDecision(decision)] }] };
}
