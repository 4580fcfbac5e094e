import type { EventType } from '../contract/endpoints.ts';
import type { VelocityWindow } from './identity-snapshot.ts';
import type { ListFieldName } from './lists.ts';
import { type IdentityTimeField, identityTimeFieldList } from './signals/identity-time.ts';
import { signalMeaning } from './signals/meanings.ts';
import { KIND_WORDS } from './signals/signal.ts';
import {
  type OwnFieldName,
  type ScoreVariableName,
  type WorkflowVariable,
  workflowVariables,
} from './variables.ts';

/**
 * What each workflow variable (variables.ts) means, for the people writing conditions: the
 * `workflows variables` help of the admin CLI. Documentation no request needs, so no Lambda handler
 * imports this module and the function bundles do not carry it (test/bundle.test.ts checks).
 * The score's, the thresholds' and every event type's own fields' texts are keyed by their names,
 * so tsc fails when one is missing; identity-time fields are worded from what they measure; signals
 * are worded beside their declarations (signals/meanings.ts, keyed by the signal registry's names).
 */
export interface DocumentedVariable extends WorkflowVariable {
  meaning: string;
}

const SCORE_MEANINGS: Readonly<Record<ScoreVariableName, string>> = {
  abuseScore: "The model's abuse score, an integer 0-100.",
  modelDeclineAt:
    "This event's DECLINE threshold, from the merchant's decision settings for its type (GET /v1/settings/{type}): the smallest score at or above the probability where approving is expected to cost more than declining, D / (A + D) (orders: A = value + chargeback fee, D = gross margin x value; returns: A = lost share x the line's value, D = the cost of refusing a good customer; accounts: A = the cost of an abusive account), or, when a review is available and cheaper, where declining gets cheaper than a review, 1 - R/D; never below the good-customer guard's floor (50 until the merchant's good shares can be measured; a trained version's own holdout threshold). Varies with the event's value.",
  modelReviewAt:
    "This event's REVIEW threshold (<= modelDeclineAt): where a review (R) costs less than approving or declining, R/A, when the workflow can review and review capacity is left today; never below the guard's review floor (30 until measured). Equal to modelDeclineAt when no review is available.",
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

function signalWords(eventType: EventType, name: string): string | undefined {
  const meaning = signalMeaning(eventType, name);
  return meaning === undefined ? undefined : `${meaning} 0 when it did not fire.`;
}

/** The event type's variable catalog with what each variable means, in catalog order. */
export function documentedVariables(eventType: EventType): DocumentedVariable[] {
  const meanings = meaningsOf(eventType);
  return workflowVariables(eventType).map(({ name, type, source }) => {
    const meaning = source === 'signal' ? signalWords(eventType, name) : meanings[name];
    // Unreachable while the tables are keyed by the catalog's own name types and the default models'
    // weights by the signal registry's names (models.ts).
    if (meaning === undefined) throw new Error(`workflow variable ${eventType}.${name} has no meaning`);
    // Fields list their meaning before their source, as the catalog always printed them.
    return source === 'field' ? { name, type, meaning, source } : { name, type, source, meaning };
  });
}
