import type { ModelThresholds } from './model.ts';
import { MODELS } from './models.ts';
import { IDENTITY_TIME_SIGNAL_MEANINGS, identityTimeFieldDeclarations } from './signals/identity-time.ts';
import { FRESH_ACCOUNTS_MEANINGS } from './signals/young-shared-identity.ts';
import type { EventType } from './workflow.ts';

/**
 * The variables a workflow condition may use, per event type: the abuse score, every signal of the
 * event type's model, and a few fields of the event. One catalog serves the CEL environment
 * (registration and type checks), `workflows variables`, the decision record and backtests.
 */
export type VariableType = 'int' | 'double' | 'string' | 'bool';
export type FieldValue = string | number | boolean;

export interface WorkflowVariable {
  name: string;
  type: VariableType;
  source: 'score' | 'model' | 'signal' | 'field';
  meaning: string;
}

/**
 * The live model's own thresholds: a trained version is calibrated, so the score at which it should
 * decline depends on the version (chosen on its holdout when it was trained); the default workflows
 * compare `abuseScore` with these rather than with fixed numbers.
 */
const MODEL_THRESHOLDS: readonly WorkflowVariable[] = [
  {
    name: 'modelDeclineAt',
    type: 'int',
    source: 'model',
    meaning:
      "The live model's DECLINE threshold: for a trained version the lowest score at which at most 0.5 % of its holdout's good events score (never below 50; the default model's when the holdout holds fewer than 200 good events); for the default model the number the default workflow used (85 orders, returns, account updates; 70 signups, logins).",
  },
  {
    name: 'modelReviewAt',
    type: 'int',
    source: 'model',
    meaning:
      "The live model's REVIEW threshold (<= modelDeclineAt): for a trained version the lowest score keeping at most 2 % of its holdout's good events between it and modelDeclineAt (never below 30; the default model's with fewer than 50 good events); for the default model 55 (returns), 50 (account updates), else equal to modelDeclineAt.",
  },
];

type FieldDeclaration = Omit<WorkflowVariable, 'source'>;

/** Ages, time since the previous event and distinct-identity velocity, at the event's own time. */
const IDENTITY_TIME_FIELDS: readonly FieldDeclaration[] = identityTimeFieldDeclarations();

const SCORE: WorkflowVariable = {
  name: 'abuseScore',
  type: 'int',
  source: 'score',
  meaning: "The model's abuse score, an integer 0-100.",
};

/**
 * Event fields a use case passes to decide(). A field it does not pass reads as the type's zero
 * ("" / 0 / false), so a condition never fails for a missing field.
 */
export const EVENT_FIELDS: Record<EventType, readonly FieldDeclaration[]> = {
  order: [
    { name: 'orderValue', type: 'double', meaning: 'totalPrice.amount of the order, in its currency.' },
    {
      name: 'currencyCode',
      type: 'string',
      meaning: 'totalPrice.currencyCode, ISO 4217 numeric (e.g. "840").',
    },
    { name: 'lineItemCount', type: 'int', meaning: 'Number of line items.' },
    { name: 'unitCount', type: 'int', meaning: 'Units ordered: the sum of the line item quantities.' },
    { name: 'orderState', type: 'string', meaning: 'Order state: "PAID", "AUTHORIZED" or "PENDING".' },
    {
      name: 'hasDeviceFingerprint',
      type: 'bool',
      meaning: 'Whether the order carried at least one device fingerprint.',
    },
    ...IDENTITY_TIME_FIELDS,
  ],
  return: [
    {
      name: 'refundMode',
      type: 'string',
      meaning: 'refundMode.refundMode: "ORIGINAL_PAYMENT", "STORE_CREDIT" or "EXCHANGE".',
    },
    {
      name: 'returnMethod',
      type: 'string',
      meaning: 'returnMethod.returnMethod: "Drop-Off", "Pickup", "In-Store".',
    },
    { name: 'returnStatus', type: 'string', meaning: 'Return status, e.g. "REQUESTED".' },
    { name: 'returnedLineItemCount', type: 'int', meaning: 'Number of returned line items on the return.' },
    { name: 'itemQuantity', type: 'int', meaning: 'Units returned of the line item this decision is for.' },
    { name: 'itemCategory', type: 'string', meaning: 'Category of that line item ("" when unknown).' },
    {
      name: 'itemValue',
      type: 'double',
      meaning: 'Value of the returned units of that line item (unit price on the order times quantity).',
    },
    ...IDENTITY_TIME_FIELDS,
  ],
  signup: [
    {
      name: 'emailDomain',
      type: 'string',
      meaning: 'Domain of the signup e-mail, normalized (e.g. "gmail.com").',
    },
    { name: 'referralCodeApplied', type: 'bool', meaning: 'Whether a referral code was applied.' },
    { name: 'hasPhone', type: 'bool', meaning: 'Whether a phone number was given.' },
    { name: 'hasAddress', type: 'bool', meaning: 'Whether an address was given.' },
    ...IDENTITY_TIME_FIELDS,
  ],
  login: [
    { name: 'loginStatus', type: 'string', meaning: 'loginStatus: "$success" or "$failure".' },
    {
      name: 'authMethod',
      type: 'string',
      meaning: 'authMethod.type: "password", "sso", "magic_link", "passkey" or "oauth".',
    },
    { name: 'mfaUsed', type: 'bool', meaning: 'authMethod.mfaUsed (false when not sent).' },
    { name: 'mfaMethod', type: 'string', meaning: 'authMethod.mfaMethod ("" when not sent).' },
    ...IDENTITY_TIME_FIELDS,
  ],
  account: [
    { name: 'changeType', type: 'string', meaning: 'changeType, e.g. "PAYOUT_CHANGE" or "MFA_DISABLE".' },
    { name: 'siteDomain', type: 'string', meaning: 'siteDomain of the account update.' },
    ...IDENTITY_TIME_FIELDS,
  ],
};

/**
 * What each known signal's value is, as the model sees it. Signals without an entry (new ones in a
 * model) still appear in the catalog, with a generic meaning.
 */
export const SIGNAL_MEANINGS: Readonly<Record<string, string>> = {
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
  ...IDENTITY_TIME_SIGNAL_MEANINGS,
  ...FRESH_ACCOUNTS_MEANINGS,
};

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const catalogs = new Map<EventType, readonly WorkflowVariable[]>();

/**
 * The catalog of one event type. Signals come from the current model's weights, so a signal added to
 * a model is a workflow variable at once. A name taken by the score or a field stays theirs.
 */
export function workflowVariables(eventType: EventType): readonly WorkflowVariable[] {
  const cached = catalogs.get(eventType);
  if (cached) return cached;
  const fields = EVENT_FIELDS[eventType].map((f): WorkflowVariable => ({ ...f, source: 'field' }));
  const taken = new Set([SCORE.name, ...MODEL_THRESHOLDS.map((v) => v.name), ...fields.map((f) => f.name)]);
  const signals = Object.keys(MODELS[eventType]?.weights ?? {})
    .filter((name) => VALID_NAME.test(name) && !taken.has(name))
    .sort()
    .map(
      (name): WorkflowVariable => ({
        name,
        type: 'double',
        source: 'signal',
        meaning: `${SIGNAL_MEANINGS[name] ?? `Value of the ${eventType} model's signal ${name}.`} 0 when it did not fire.`,
      }),
    );
  const catalog = Object.freeze([SCORE, ...MODEL_THRESHOLDS, ...signals, ...fields]);
  catalogs.set(eventType, catalog);
  return catalog;
}

const ZERO: Record<VariableType, FieldValue> = { int: 0, double: 0, string: '', bool: false };

/**
 * Every field of the event type, coerced to its declared type, missing ones as zero values. This is
 * what the conditions see and what the decision keeps for replays.
 */
export function normalizeFields(
  eventType: EventType,
  fields: Readonly<Record<string, FieldValue>>,
): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const field of EVENT_FIELDS[eventType]) out[field.name] = coerce(field.type, fields[field.name]);
  return out;
}

/**
 * The fields that differ from their type's zero value: what a stored decision keeps (most of an
 * event's fields are zero: no account, no velocity). `normalizeFields` of the result gives the
 * normalized fields back exactly.
 */
export function nonZeroFields(
  eventType: EventType,
  normalized: Readonly<Record<string, FieldValue>>,
): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const field of EVENT_FIELDS[eventType]) {
    const value = normalized[field.name];
    if (value !== undefined && value !== ZERO[field.type]) out[field.name] = value;
  }
  return out;
}

function coerce(type: VariableType, value: FieldValue | undefined): FieldValue {
  if (value === undefined) return ZERO[type];
  switch (type) {
    case 'int': {
      const n = Math.trunc(Number(value));
      return Number.isFinite(n) ? n : 0;
    }
    case 'double': {
      const n = Number(value);
      return Number.isFinite(n) ? n : 0;
    }
    case 'string':
      return String(value);
    case 'bool':
      return value === true || value === 'true';
  }
}

/**
 * The CEL activation: CEL ints are BigInts, doubles plain numbers. Signals that did not fire (or are
 * not finite) read 0, like the model reads them.
 */
export function celActivation(
  eventType: EventType,
  abuseScore: number,
  signals: Readonly<Record<string, number>>,
  normalizedFields: Readonly<Record<string, FieldValue>>,
  thresholds: ModelThresholds,
): Record<string, bigint | number | string | boolean> {
  const activation: Record<string, bigint | number | string | boolean> = {};
  for (const variable of workflowVariables(eventType)) {
    if (variable.source === 'score') activation[variable.name] = BigInt(Math.round(abuseScore));
    else if (variable.source === 'model')
      activation[variable.name] = BigInt(
        Math.round(variable.name === 'modelDeclineAt' ? thresholds.declineAt : thresholds.reviewAt),
      );
    else if (variable.source === 'signal') {
      const value = signals[variable.name] ?? 0;
      activation[variable.name] = Number.isFinite(value) ? value : 0;
    } else {
      const value = normalizedFields[variable.name] ?? ZERO[variable.type];
      activation[variable.name] = variable.type === 'int' ? BigInt(Math.trunc(Number(value)) || 0) : value;
    }
  }
  return activation;
}

/**
 * Fields of an order for its workflow, from the request (structurally typed, so scoring stays free
 * of the HTTP schema).
 */
export function orderFields(order: {
  totalPrice: { amount: string; currencyCode: string };
  state: string;
  lineItems: readonly { quantity: string }[];
  deviceFingerprints?: readonly unknown[] | undefined;
}): Record<string, FieldValue> {
  let units = 0;
  for (const item of order.lineItems) units += Number(item.quantity) || 0;
  return {
    orderValue: Number(order.totalPrice.amount),
    currencyCode: order.totalPrice.currencyCode,
    lineItemCount: order.lineItems.length,
    unitCount: units,
    orderState: order.state,
    hasDeviceFingerprint: (order.deviceFingerprints?.length ?? 0) > 0,
  };
}
