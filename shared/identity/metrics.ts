/**
 * Names of the counters kept per identity. Writers (use cases) and readers (scoring signals) share
 * these, so a counter can never be written under one name and read under another. Short names keep
 * the counter items small: item size is what every decision pays for.
 */
export const METRIC = {
  orders: 'ord',
  orderValue: 'ordV',
  returns: 'ret',
  returnValue: 'retV',
  abusiveReturns: 'abr',
  /** Review-queue items a merchant resolved as legitimate: the merchant vouched for these identities. */
  legitimateReviews: 'lgR',
  /** HEAVILY_USED dispositions: a customer's second and later ones count as abusive returns. */
  heavilyUsedReturns: 'hvu',
  lostChargebacks: 'cbL',
  /**
   * Lost disputes whose reason is not fraud (item not received, not as described), counted in
   * lostChargebacks too: what an honest customer loses over goods says little about abuse.
   */
  lostServiceDisputes: 'cbS',
  lostChargebackValue: 'cbLV',
  openDisputes: 'dsO',
  /** Signups naming this device, phone, address, e-mail or e-mail domain. */
  signups: 'sgn',
  /** Referees who named this customer as their referrer. */
  referrals: 'ref',
  /** Login attempts, on the account (customer) and on each device. */
  loginFailures: 'lgF',
  loginSuccesses: 'lgS',
  /** Successful logins that used MFA, on the account: tells whether MFA is this account's habit. */
  mfaLogins: 'lgM',
  /** Successful logins from a device new to an account that had known devices (read by account updates). */
  newDeviceLogins: 'lgN',
  /** First attempt of a device on an account, on the device: distinct accounts tried per window. */
  deviceAccountsTried: 'dvA',
  /** Account updates on the account, and the risky ones among them (payout, MFA, contact changes). */
  accountChanges: 'acC',
  riskyAccountChanges: 'acR',
  /** Signups, logins and account updates declined, on the account and its devices. */
  accountEventDeclines: 'aDc',
  /**
   * Orders sent seconds after their e-mail first appeared (a script signing up and checking out), on
   * the order's devices, each weighed by how fast (identity-time.ts `scriptSpeedAfterFirstSighting`):
   * signups read it on their device.
   */
  scriptedOrders: 'scO',
  /**
   * Orders whose customer was named another member of its device's household (signals/household.ts
   * `namedHousehold`), on the order's e-mail: its later orders there are that member's, not a
   * stranger's who took the name the device first saw with them.
   */
  householdNamedOrders: 'hhN',
} as const;
