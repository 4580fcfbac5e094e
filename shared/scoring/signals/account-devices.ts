import type { IdentityRef } from '../../identity/identities.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';

/**
 * How an event's devices relate to the account, read from the account's trusted devices (linked on
 * signup and successful login) and each device's accounts (linked on every attempt). Shared by the
 * login and account-update signals and by the use cases that record the pairing.
 */
export interface AccountDeviceFacts {
  /** The account has trusted devices and none of this event's devices is among them. */
  newDevice: boolean;
  /** This event's devices the account already trusts. */
  trustedDevices: IdentitySnapshot[];
  /** Devices that never touched this account before. */
  devicesNewToAccount: IdentitySnapshot[];
  /** Most accounts any of the devices touched besides this one (lifetime). */
  otherAccounts: number;
}

export function accountDeviceFacts(
  customer: IdentityRef,
  account: IdentitySnapshot,
  devices: readonly IdentitySnapshot[],
): AccountDeviceFacts {
  const trustedDevices = devices.filter((d) => account.isLinked('device', d.ref.digest));
  return {
    newDevice: account.linkedCount('device') > 0 && devices.length > 0 && trustedDevices.length === 0,
    trustedDevices,
    devicesNewToAccount: devices.filter((d) => !d.isLinked('customer', customer.digest)),
    otherAccounts: Math.max(0, ...devices.map((d) => otherAccountsOf(d, customer))),
  };
}

/** Accounts a device touched, not counting this one. */
export function otherAccountsOf(device: IdentitySnapshot, customer: IdentityRef): number {
  return device.linkedCount('customer') - (device.isLinked('customer', customer.digest) ? 1 : 0);
}
