import type { EventType } from '../../contract/endpoints.ts';
import { RISKY_CHANGE_TYPES } from '../../schemas/account.ts';
import { NETWORK_ABUSE_FLOOR } from '../network-reputation.ts';
import { DOMAIN_BASELINE_SIGNUPS } from './email-domain-burst.ts';
import { SCRIPT_SPEED_SECONDS, VELOCITY_FLOOR, YOUNG_SECONDS } from './identity-time.ts';
import {
  MFA_HABIT_MIN_LOGINS,
  MFA_SHARE_RAMP,
  OWNER_DEVICE_DISCOUNT,
  SUCCESS_AFTER_FAILURES_FLOOR,
} from './login-signals.ts';
import { NETWORK_SIGHTING_FLOOR } from './network-signals.ts';
import { type OwnSignalName, type SharedSignalName, signalNames } from './registry.ts';
import {
  HIGH_ITEM_VALUE,
  HIGH_VALUE_CATEGORY_WORDS,
  LATE_RETURN_DAYS,
  MIN_PRIOR_RETURNS_FOR_RATE,
  RATE_THRESHOLD,
} from './return-signals.ts';
import { SCRIPTED_ORDERS_MEMORY_SECONDS, SELF_REFERRAL_WEIGHT } from './signup-signals.ts';
import { CLEAN_ACTIVE_DAYS_SCALE, CLEAN_EVENTS_SCALE } from './watched-identity.ts';
import { ORDER_EMAIL_PACE_SECONDS, SIGNUP_ACCOUNT_PACE_SECONDS } from './young-shared-identity.ts';

/** How many others an event's household explains, in words (household.ts). */
const HOUSEHOLD_WORDS =
  "up to 3 when the event's address was already used with the device; for a signup, its family's others when larger: f + min(1, f) for a partner, f = m e^-(share / 5 %), when its surname was already used there (m = the device's whole names but one per other surname on it, at least 3; share = the name's part of the merchant's signups beyond the device's own accounts), else the namesakes of a family the device's names show (2 or more whole names under one surname), the signup being its partner; 1 when nothing tells the home (no device, no address, or a device never used with one); none for a signup under a whole name (first name and surname) the device already holds: the same person's next account";

/**
 * What each declared signal's value is, for the people writing workflow conditions (the
 * `workflows variables` help, through variable-meanings.ts). Documentation no request needs, so it
 * is kept apart from the declarations, keyed by the registry's names: tsc fails when a declared
 * signal has no meaning here or a meaning names no declared signal. A signal declared once for
 * several event types has one meaning; the others have one per event type that declares them.
 */
export const SHARED_SIGNAL_MEANINGS: Readonly<Record<SharedSignalName, string>> = {
  scriptSpeedAfterPreviousEvent: `1 / (1 + (s / ${SCRIPT_SPEED_SECONDS})^4), s = seconds since the previous event of its account (orders: its e-mail): about 1 within 10 s, 0.5 at ${SCRIPT_SPEED_SECONDS} s, under 0.01 (then 0) past a minute.`,
  youngIdentity: `1 - age / ${YOUNG_SECONDS} s when the event's e-mail (orders) or account was first seen less than ${YOUNG_SECONDS / 60} minutes before it (not at this event), else 0.`,
  newIdentitiesAroundLastHour: `log2(n) when n >= ${VELOCITY_FLOOR} other e-mails, accounts or cards appeared on the event's device, card or address in the last hour (the most of the pairs the event type reads), else 0.`,
  watchedIdentityNewCustomer: `log2(1 + n), n = the identities of the event on the watch list for its type (orders: not the billing address, the cardholder's in card-not-present fraud), each counted by how new the event's customer (orders, returns: the e-mail; signups, logins, account updates: the account) is to it: 0 when it was seen before the entry, 1 when it has abuse of its own, else w when it is new with this event and w·e^-(active days / ${CLEAN_ACTIVE_DAYS_SCALE} + kept orders and logins / ${CLEAN_EVENTS_SCALE}) after, where w = e^-(s / ${CLEAN_EVENTS_SCALE}) and s = the identity's kept orders and logins when a feedback rule listed it, less the lost chargebacks and abusive returns on it since (0 for a person's entry); w² for an order's customer named another member of the household of a watched device (its surname on the device under another whole name) on that device and its home address.`,
  watchedIdentityKnownCustomer:
    'log2(1 + n), n = the identities of the event on the watch list for its type, each counted by how well the customer is known to it (1 - its part in watchedIdentityNewCustomer): a household member with history on a watched device.',
  freshAccountsOnYoungIdentity: `log2(1 + n) x 1 / (1 + (age / (n x pace))^4), n = other accounts (signups: on the device or phone) or e-mails (orders: on the card or device) on an identity of that age, pace = ${SIGNUP_ACCOUNT_PACE_SECONDS / 86_400} days (signups) or ${ORDER_EMAIL_PACE_SECONDS / 86_400} days (orders); the most over those identities. Orders weigh it by the freshness of their own e-mail, 1 / (1 + (e-mail age / ${ORDER_EMAIL_PACE_SECONDS / 86_400} days)^4). n counts only the others beyond those the event's household explains (${HOUSEHOLD_WORDS}).`,
};

/** Other accounts on one of a signup's identities: the `...SharedWithOtherAccounts` signals. */
const accountsBehind = (identity: string, identities = `${identity}s`) =>
  `log2(1 + n), n = other accounts already linked to the signup's ${identity} (the most over its ${identities}).`;

export const SIGNAL_MEANINGS: { readonly [T in EventType]: Readonly<Record<OwnSignalName<T>, string>> } = {
  order: {
    lostChargebacksOnIdentities:
      "log2(1 + n), n = most lost chargebacks in 365 days on an identity of the event (orders: on its e-mail or card, the customer's own; 1 = one, 2 = three), not counting disputes lost for a reason that is not fraud (item not received, not as described).",
    lostChargebacksOnSharedIdentities:
      "log2(1 + n), n = most lost chargebacks (fraud reasons only) in 365 days on the device, address or phone of the order, less those on its own e-mail and card (a household's shared identities carry every member's chargebacks, so they weigh less than the customer's own) and the one that put the identity on the watch list (the watch signals read it); weighed by 1 / (1 + (e-mail age / 7 days)^4): a customer established on them for weeks is not judged by its household.",
    abusiveReturnsOnIdentities:
      'log2(1 + n), n = most abusive returns in 365 days on any identity of the order.',
    openDisputesOnIdentities: 'log2(1 + n), n = most open disputes on any identity of the order.',
    cardSharedAcrossEmails: 'log2(1 + n), n = other e-mails seen with the card of the order.',
    deviceSharedAcrossEmails: `log2(1 + n), n = other e-mails seen with the device of the order beyond those its household explains (${HOUSEHOLD_WORDS}); weighed by 1 / (1 + (e-mail age / 7 days)^4), as lostChargebacksOnSharedIdentities.`,
    ordersLastHourOnIdentities:
      'log2(n) when n >= 2 earlier orders in the last hour on the e-mail, card or device; else 0.',
    newCustomer: '1 when the e-mail has no earlier order, else 0.',
    billingShippingMismatch: '1 when billing and shipping addresses differ, else 0.',
    cvvMismatch: '1 when a CVV check failed (result code N), else 0.',
    avsMismatch: '1 when address verification failed (result code N or C), else 0.',
    giftCardUsed: '1 when a gift card paid, else 0.',
    orderValueVsHistory:
      'min(3, 2 log2(r / 2)) when the order is r > 2 times the average order value of the e-mail (0 at 2, 2 at 4, 3 from 5.7); else 0.',
    legitimateReviewsOnIdentities:
      'log2(1 + n), n = most reviews resolved "legitimate" in 365 days on the e-mail, card or device (lowers the score).',
    networkConfirmedAbuse: `Network members only: s x log2(n - ${NETWORK_ABUSE_FLOOR - 2}) when n >= ${NETWORK_ABUSE_FLOOR} other merchants confirmed abuse (lost fraud chargebacks, abusive returns, reviews resolved as abuse, confirmed takeovers) on the card, device or e-mail, each merchant counted once however many causes it sent, s = 1 for a card or device and 0.5 for an e-mail; the most over those identities; else 0 (a privacy floor: what one or two merchants reported never shows). Always 0 outside the network.`,
    networkNewMerchantsLastDay: `Network members only: log2(n - ${NETWORK_SIGHTING_FLOOR - 2}) when n >= ${NETWORK_SIGHTING_FLOOR} other merchants first saw the card, device or e-mail in the 24 hours before the event (the most over them), else 0. Always 0 outside the network.`,
  },
  return: {
    moreUnitsReturnedThanBought:
      '1 when the units of the order line returned so far, this return included, exceed the units bought, else 0.',
    abusiveReturnsOnIdentities:
      'log2(1 + n), n = most abusive returns in 365 days on any identity of the order or of the return.',
    lostChargebacksOnIdentities:
      'log2(1 + n), n = most lost chargebacks in 365 days on any identity of the order or of the return, not counting disputes lost for a reason that is not fraud.',
    openDisputesOnIdentities:
      'log2(1 + n), n = most open disputes on any identity of the order or of the return.',
    returnsLast30Days:
      "log2(1 + n), n = most earlier returns in 30 days on the customer's e-mail or payment instrument or on a device the return was sent from.",
    returnsLast365Days:
      'log2(n - 1) when n > 2 earlier returns in 365 days on the same identities as returnsLast30Days (two a year are usual); else 0.',
    returnRateByCount: `h x s x min(2, r), r = the share of orders returned (lifetime) on the customer's e-mail or payment instrument, s rising from 0 at r = ${RATE_THRESHOLD / 2} to 1 at ${RATE_THRESHOLD}, h = (returns - 1) / ${MIN_PRIOR_RETURNS_FOR_RATE} up to 1 (none at one earlier return); the most over those identities.`,
    returnRateByValue: `h x s x min(2, r), r = the share of order value returned (lifetime) on the customer's e-mail or payment instrument, s and h as for returnRateByCount; the most over those identities.`,
    lateReturn: `min(2, (d - ${LATE_RETURN_DAYS}) / ${LATE_RETURN_DAYS}) when the return comes d > ${LATE_RETURN_DAYS} days after the order; else 0.`,
    highValueCategory: `1 when the item's category contains a word of a category whose resale makes abuse pay (${HIGH_VALUE_CATEGORY_WORDS.join(', ')}; any case), else 0.`,
    highValueItem: `min(2, log2(v / ${HIGH_ITEM_VALUE / 2})), v = what the returned units of the item are worth (0 up to ${HIGH_ITEM_VALUE / 2}, 1 at ${HIGH_ITEM_VALUE}, 2 from ${HIGH_ITEM_VALUE * 2}).`,
    refundToOriginalPayment:
      '1 when the refund goes back to the original payment (refundMode ORIGINAL_PAYMENT), else 0.',
    refundAsExchange:
      '1 when the return is an exchange (refundMode EXCHANGE), else 0; its weight is negative: an exchange keeps the value with the merchant.',
    returnDeviceSharedAcrossEmails: `log2(1 + n), n = e-mails other than the order's seen with a device the return was sent from (the most over those devices), beyond those the household explains (${HOUSEHOLD_WORDS}; the order's address and the return's device).`,
  },
  signup: {
    deviceSharedWithOtherAccounts: `log2(1 + n), n = other accounts already linked to the signup's device beyond those its household explains (${HOUSEHOLD_WORDS}); the most over its devices.`,
    scriptedOrdersFromDevice: `log2(1 + w) x 1 / (1 + (t / ${SCRIPTED_ORDERS_MEMORY_SECONDS / 86_400} days)^4): w = the orders the signup's device sent seconds after their account signed up in 365 days, each weighed 1 / (1 + (s / ${SCRIPT_SPEED_SECONDS} s)^4) for s seconds from its e-mail's first sighting to the order; t = the time since the latest; the most over its devices.`,
    phoneSharedWithOtherAccounts: accountsBehind('phone'),
    addressSharedWithOtherAccounts: accountsBehind('address', 'addresses'),
    emailSharedWithOtherAccounts: accountsBehind('e-mail'),
    signupsFromDeviceLastHour: `log2(1 + n), n = earlier signups from the signup's device in the last hour (the most over its devices), less those its household explains (${HOUSEHOLD_WORDS}).`,
    signupsFromDeviceEarlierToday:
      "log2(1 + n), n = signups from the signup's device in the 24 hours before the last hour (the most over its devices), less what the household's allowance leaves after the last hour's.",
    signupsOnEmailDomainLastHour: `w x log2(1 + excess): excess = the e-mail domain's earlier signups in the last hour above mean + 3 sqrt(mean + 1), the mean being its usual share of the merchant's signups (30 days before the hour, one signup added) times the merchant's signups in the hour; w = baseline / (baseline + ${DOMAIN_BASELINE_SIGNUPS}), baseline = the merchant's signups in those 30 days (0 in its first hour). A surge of the whole merchant moves no share.`,
    selfReferral: `2 when the signup names its own account as referrer; else min(2, the sum of ${SELF_REFERRAL_WEIGHT.device} for a device, ${SELF_REFERRAL_WEIGHT.phone} for a phone and ${SELF_REFERRAL_WEIGHT.address} for an address the referee shares with the referrer's account), 0 when it shares none.`,
    referrerReferralBurst:
      'log2(n) when the referrer brought n >= 2 other signups in the last 24 hours, else 0.',
    emailVariantOnDevice:
      "1 when the signup's device already holds the stem of its e-mail (the local part without separators and trailing digits, at any provider, 4 letters or more) and none of its addresses: another address of an earlier account's holder there (jsmith and jsmith84, john.smith at two providers); else 0.",
    holderNameOnDevice:
      "1 when the signup's device already holds its whole name (first name and surname, from an earlier signup or order) and none of its addresses: the person behind an earlier account there, under a new address; else 0.",
    disposableEmail:
      "1 when the e-mail's domain is a known disposable-mail domain (or a subdomain of one), else 0.",
    machineGeneratedEmail:
      "How machine-made the e-mail's local part looks, 0 to 1: 1 for a hex blob, a long consonant run or a random-looking token, 0.5 for a run of five or more digits, 0 for anything a person would pick (the highest over the signup's e-mails).",
  },
  login: {
    accountFailuresLastHour: `log2(1 + n), n = failed logins on the account in the last hour; times ${OWNER_DEVICE_DISCOUNT} when the login succeeds from a device the account trusts (the owner logging in, after its own typos or during an attack on the account).`,
    accountFailuresEarlierToday: `log2(1 + n), n = failed logins on the account in the 24 hours before the last hour; times ${OWNER_DEVICE_DISCOUNT} like accountFailuresLastHour.`,
    successAfterFailures: `1 when the login succeeds after at least ${SUCCESS_AFTER_FAILURES_FLOOR} failed logins on the account in the last hour, unless from a device the account trusts; else 0.`,
    deviceAccountsTried:
      "log2(1 + n), n = other accounts the login's device tried for the first time in the last 24 hours (the most over its devices).",
    deviceFailuresLastHour: `log2(1 + n), n = failed logins from the login's device in the last hour, on any account (the most over its devices); times ${OWNER_DEVICE_DISCOUNT} like accountFailuresLastHour.`,
    newDeviceForAccount:
      '1 when the login succeeds from devices none of which the account trusts (those of its signup and successful logins), on an account that trusts some; else 0.',
    mfaNotUsedWhereUsual: `When the login succeeds without MFA on an account with at least ${MFA_HABIT_MIN_LOGINS} earlier successful logins: their share with MFA, as a ramp from 0 at ${MFA_SHARE_RAMP.from * 100} % to 1 at ${MFA_SHARE_RAMP.to * 100} %; else 0.`,
  },
  account: {
    riskyChange: `1 when the change is high-risk (${[...RISKY_CHANGE_TYPES].join(', ')}), else 0.`,
    riskyChangeAfterNewDeviceLogin:
      "For a high-risk change near the account's latest successful login from a device new to it: 1 / (1 + (t / 6 h)^4), t the time between them (either side); else 0.",
    riskyChangeAfterFailures:
      'log2(1 + n), n = failed logins on the account in the last 24 hours, for a high-risk change; else 0.',
    riskyChangesLastHour:
      'log2(1 + n), n = other high-risk changes on the account in the last hour, for a high-risk change; else 0.',
    deviceNotSeenForAccount:
      '1 when the update comes from devices none of which the account trusts (those of its signup and successful logins), on an account that trusts some; else 0.',
    deviceAbuseOnOtherAccounts:
      "log2(1 + n) x (k - 1) / k, n = declined signups, logins and account updates in 30 days plus lost chargebacks and abusive returns in 365 days on a device of the update that k other accounts used too, the first of them taken for a housemate's (the most over its devices).",
    deviceSharedWithOtherAccounts:
      "log2(1 + n), n = other accounts a device of the update was used with (signups and login attempts; the most over its devices) beyond the first, taken for a housemate's: an update names no address to tell its home.",
  },
};

/** What a signal of an event type means, or undefined when the type declares no such signal. */
export function signalMeaning(eventType: EventType, name: string): string | undefined {
  if (!signalNames(eventType).includes(name)) return undefined;
  const own: Readonly<Record<string, string>> = SIGNAL_MEANINGS[eventType];
  return own[name] ?? (SHARED_SIGNAL_MEANINGS as Readonly<Record<string, string>>)[name];
}
