import type { VelocityWindow } from './identity-snapshot.ts';
import type { ListFieldName } from './lists.ts';
import {
  type IdentityTimeField,
  identityTimeFieldList,
  SCRIPT_SPEED_SECONDS,
  VELOCITY_FLOOR,
  YOUNG_SECONDS,
} from './signals/identity-time.ts';
import { KIND_WORDS } from './signals/signal.ts';
import { ORDER_EMAIL_PACE_SECONDS, SIGNUP_ACCOUNT_PACE_SECONDS } from './signals/young-shared-identity.ts';
import {
  type OwnFieldName,
  type ScoreVariableName,
  type WorkflowVariable,
  workflowVariables,
} from './variables.ts';
import type { EventType } from './workflow.ts';

/**
 * What each workflow variable (variables.ts) means, for the people writing conditions: the
 * `workflows variables` help of the admin CLI. Documentation no request needs, so no Lambda handler
 * imports this module and the function bundles do not carry it (test/bundle.test.ts checks).
 * The score's, the thresholds' and every event type's own fields' texts are keyed by their names,
 * so tsc fails when one is missing; identity-time fields are worded from what they measure.
 */
export interface DocumentedVariable extends WorkflowVariable {
  meaning: string;
}

const SCORE_MEANINGS: Readonly<Record<ScoreVariableName, string>> = {
  abuseScore: "The model's abuse score, an integer 0-100.",
  modelDeclineAt:
    "The live model's DECLINE threshold: for a trained version the lowest score at which at most 0.5 % of its holdout's good events score (never below 50; the default model's when the holdout holds fewer than 200 good events); for the default model the number the default workflow used (85 orders, returns, account updates; 70 signups, logins).",
  modelReviewAt:
    "The live model's REVIEW threshold (<= modelDeclineAt): for a trained version the lowest score keeping at most 2 % of its holdout's good events between it and modelDeclineAt (never below 30; the default model's with fewer than 50 good events); for the default model 55 (returns), 50 (account updates), else equal to modelDeclineAt.",
};

const OWN_FIELD_MEANINGS: { readonly [T in EventType]: Readonly<Record<OwnFieldName<T>, string>> } = {
  order: {
    orderValue: 'totalPrice.amount of the order, in its currency.',
    currencyCode: 'totalPrice.currencyCode, ISO 4217 numeric (e.g. "840").',
    lineItemCount: 'Number of line items.',
    unitCount: 'Units ordered: the sum of the line item quantities.',
    orderState: 'Order state: "PAID", "AUTHORIZED" or "PENDING".',
    hasDeviceFingerprint: 'Whether the order carried at least one device fingerprint.',
  },
  return: {
    refundMode: 'refundMode.refundMode: "ORIGINAL_PAYMENT", "STORE_CREDIT" or "EXCHANGE".',
    returnMethod: 'returnMethod.returnMethod: "Drop-Off", "Pickup", "In-Store".',
    returnStatus: 'Return status, e.g. "REQUESTED".',
    returnedLineItemCount: 'Number of returned line items on the return.',
    itemQuantity: 'Units returned of the line item this decision is for.',
    itemCategory: 'Category of that line item ("" when unknown).',
    itemValue: 'Value of the returned units of that line item (unit price on the order times quantity).',
  },
  signup: {
    emailDomain: 'Domain of the signup e-mail, normalized (e.g. "gmail.com").',
    referralCodeApplied: 'Whether a referral code was applied.',
    hasPhone: 'Whether a phone number was given.',
    hasAddress: 'Whether an address was given.',
  },
  login: {
    loginStatus: 'loginStatus: "$success" or "$failure".',
    authMethod: 'authMethod.type: "password", "sso", "magic_link", "passkey" or "oauth".',
    mfaUsed: 'authMethod.mfaUsed (false when not sent).',
    mfaMethod: 'authMethod.mfaMethod ("" when not sent).',
  },
  account: {
    changeType: 'changeType, e.g. "PAYOUT_CHANGE" or "MFA_DISABLE".',
    siteDomain: 'siteDomain of the account update.',
  },
};

/** The lists (lists.ts), for rules of a merchant's own beside the built-in overrides. */
const LIST_FIELD_MEANINGS: Readonly<Record<ListFieldName, string>> = {
  onBlockList:
    'Whether an identity of the event is on the block list for this event type at its time (the event is then declined, returns reviewed, whatever the workflow says).',
  onAllowList:
    "Whether the event's customer (orders and returns: its e-mail; signups: the account or its e-mail; logins, account updates: the account) is on the allow list (a DECLINE from the workflow then becomes APPROVE; a block still wins).",
  watchListedIdentities:
    'How many identities of the event are on the watch list for this event type at its time.',
};

const WINDOW_WORDS: Record<VelocityWindow, string> = { m15: '15 minutes', h1: 'hour', h24: '24 hours' };

function identityTimeFieldMeaning(field: IdentityTimeField): string {
  switch (field.measures) {
    case 'age':
      return `Seconds between the first sighting of the event's ${KIND_WORDS[field.kind]} (the oldest, if several) and the event's time; 0 when this event is its first sighting, -1 when the event names none.`;
    case 'secondsSincePrevious':
      return "Seconds since the previous event of the event's account (orders: its e-mail); -1 when there is none before it.";
    case 'velocity':
      return `Distinct other ${KIND_WORDS[field.counted]}s seen with the event's ${KIND_WORDS[field.holder]} in the last ${WINDOW_WORDS[field.window]} (most over its ${KIND_WORDS[field.holder]}s; approximate: bucket-aligned, saturates at 16 per bucket).`;
  }
}

/**
 * What each known signal's value is, as the model sees it. Signals without an entry (new ones in a
 * model) still appear in the catalog, with a generic meaning.
 */
const SIGNAL_MEANINGS: Readonly<Record<string, string>> = {
  lostChargebacksOnIdentities:
    "log2(1 + n), n = most lost chargebacks in 365 days on an identity of the event (orders: on its e-mail or card, the customer's own; 1 = one, 2 = three).",
  lostChargebacksOnSharedIdentities:
    "log2(1 + n), n = most lost chargebacks in 365 days on the device, address or phone of the order, less those on its own e-mail and card (a household's shared identities carry every member's chargebacks, so they weigh less than the customer's own).",
  abusiveReturnsOnIdentities:
    'log2(1 + n), n = most abusive returns in 365 days on any identity of the order.',
  openDisputesOnIdentities: 'log2(1 + n), n = most open disputes on any identity of the order.',
  cardSharedAcrossEmails: 'log2(1 + n), n = other e-mails seen with the card of the order.',
  deviceSharedAcrossEmails: 'log2(1 + n), n = other e-mails seen with the device of the order.',
  ordersLastHourOnIdentities:
    'log2(n) when n >= 2 earlier orders in the last hour on the e-mail, card or device; else 0.',
  newCustomer: '1 when the e-mail has no earlier order, else 0.',
  billingShippingMismatch: '1 when billing and shipping addresses differ, else 0.',
  cvvMismatch: '1 when a CVV check failed (result code N), else 0.',
  avsMismatch: '1 when address verification failed (result code N or C), else 0.',
  giftCardUsed: '1 when a gift card paid, else 0.',
  orderValueVsHistory:
    'min(3, log2(r)) when the order is r > 2 times the average order value of the e-mail; else 0.',
  legitimateReviewsOnIdentities:
    'log2(1 + n), n = most reviews resolved "legitimate" in 365 days on the e-mail, card or device (lowers the score).',
  scriptSpeedAfterPreviousEvent: `1 when the event came less than ${SCRIPT_SPEED_SECONDS} s after the previous event of its account (orders: its e-mail), else 0.`,
  youngIdentity: `1 - age / ${YOUNG_SECONDS} s when the event's e-mail (orders) or account was first seen less than ${YOUNG_SECONDS / 60} minutes before it (not at this event), else 0.`,
  newIdentitiesAroundLastHour: `log2(n) when n >= ${VELOCITY_FLOOR} other e-mails, accounts or cards appeared on the event's device, card or address in the last hour (the most of the pairs the event type reads), else 0.`,
  watchedIdentityNewCustomer:
    "log2(1 + n), n = identities of the event on the watch list for its type (orders: not the billing address, the cardholder's in card-not-present fraud) whose entry is older than the event's customer (orders, returns: the e-mail; signups, logins, account updates: the account), or whose customer is new with this event.",
  watchedIdentityKnownCustomer:
    'log2(1 + n), n = identities of the event on the watch list for its type whose entry is newer than the customer (a household member with history on a watched device).',
  freshAccountsOnYoungIdentity: `log2(1 + n), n = other accounts (signups: on the device or phone) or e-mails (orders: on the card or device, only when the order's e-mail is itself at most ${ORDER_EMAIL_PACE_SECONDS / 86_400} days old) on an identity first seen at most n x ${SIGNUP_ACCOUNT_PACE_SECONDS / 86_400} days (signups) or n x ${ORDER_EMAIL_PACE_SECONDS / 86_400} days (orders) before the event; the most over those identities.`,
};

/** The meaning of every variable but the signals, by name, for one event type. */
function meaningsOf(eventType: EventType): Readonly<Record<string, string>> {
  return {
    ...SCORE_MEANINGS,
    ...OWN_FIELD_MEANINGS[eventType],
    ...Object.fromEntries(
      identityTimeFieldList().map((field) => [field.name, identityTimeFieldMeaning(field)]),
    ),
    ...LIST_FIELD_MEANINGS,
  };
}

/** The event type's variable catalog with what each variable means, in catalog order. */
export function documentedVariables(eventType: EventType): DocumentedVariable[] {
  const meanings = meaningsOf(eventType);
  return workflowVariables(eventType).map(({ name, type, source }) => {
    if (source === 'signal') {
      const meaning = `${SIGNAL_MEANINGS[name] ?? `Value of the ${eventType} model's signal ${name}.`} 0 when it did not fire.`;
      return { name, type, source, meaning };
    }
    const meaning = meanings[name];
    // Unreachable while the tables above are keyed by the catalog's own name types.
    if (meaning === undefined) throw new Error(`workflow variable ${eventType}.${name} has no meaning`);
    // Fields list their meaning before their source, as the catalog always printed them.
    return source === 'field' ? { name, type, meaning, source } : { name, type, source, meaning };
  });
}
