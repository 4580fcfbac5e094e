import type { EventType } from '../contract/endpoints.ts';
import { LIST_FIELDS } from './lists.ts';
import type { ModelThresholds } from './model.ts';
import { MODELS } from './models.ts';
import { identityTimeFieldList } from './signals/identity-time.ts';

/**
 * The variables a workflow condition may use, per event type: the abuse score, every signal the
 * event type declares, and a few fields of the event. One catalog serves the CEL environment
 * (registration and type checks), `workflows variables`, the decision record and backtests. What
 * each variable means is documentation no request needs: variable-meanings.ts, outside the Lambda
 * bundles.
 */
export type VariableType = 'int' | 'double' | 'string' | 'bool';
export type FieldValue = string | number | boolean;

export interface WorkflowVariable {
  name: string;
  type: VariableType;
  source: 'score' | 'model' | 'signal' | 'field';
}

/**
 * The event's own thresholds: where declining (reviewing) becomes cheaper at the merchant's
 * economics for its value, never below the good-customer guard's floors, which for a trained version
 * are the ones it chose on its holdout (decision-thresholds.ts); the default workflows compare
 * `abuseScore` with these rather than with fixed numbers.
 */
const MODEL_THRESHOLDS = [
  { name: 'modelDeclineAt', type: 'int', source: 'model' },
  { name: 'modelReviewAt', type: 'int', source: 'model' },
] as const satisfies readonly WorkflowVariable[];

type FieldDeclaration = Omit<WorkflowVariable, 'source'>;

/** Ages, time since the previous event and distinct-identity velocity, at the event's own time. */
const IDENTITY_TIME_FIELDS: readonly FieldDeclaration[] = identityTimeFieldList().map(({ name }) => ({
  name,
  type: 'int',
}));

const SCORE = { name: 'abuseScore', type: 'int', source: 'score' } as const satisfies WorkflowVariable;

/** The score and the model's thresholds, by name. */
export type ScoreVariableName = typeof SCORE.name | (typeof MODEL_THRESHOLDS)[number]['name'];

/** The fields each event type declares of its own (the identity-time fields come after them in every type). */
const OWN_FIELDS = {
  order: [
    { name: 'orderValue', type: 'double' },
    { name: 'currencyCode', type: 'string' },
    { name: 'lineItemCount', type: 'int' },
    { name: 'unitCount', type: 'int' },
    { name: 'orderState', type: 'string' },
    { name: 'hasDeviceFingerprint', type: 'bool' },
  ],
  return: [
    { name: 'refundMode', type: 'string' },
    { name: 'returnMethod', type: 'string' },
    { name: 'returnStatus', type: 'string' },
    { name: 'returnedLineItemCount', type: 'int' },
    { name: 'itemQuantity', type: 'int' },
    { name: 'itemCategory', type: 'string' },
    { name: 'itemValue', type: 'double' },
  ],
  signup: [
    { name: 'emailDomain', type: 'string' },
    { name: 'referralCodeApplied', type: 'bool' },
    { name: 'hasPhone', type: 'bool' },
    { name: 'hasAddress', type: 'bool' },
  ],
  login: [
    { name: 'loginStatus', type: 'string' },
    { name: 'authMethod', type: 'string' },
    { name: 'mfaUsed', type: 'bool' },
    { name: 'mfaMethod', type: 'string' },
  ],
  account: [
    { name: 'changeType', type: 'string' },
    { name: 'siteDomain', type: 'string' },
  ],
} as const satisfies Record<EventType, readonly FieldDeclaration[]>;

/** The names of an event type's own fields (variable-meanings.ts words each one). */
export type OwnFieldName<T extends EventType> = (typeof OWN_FIELDS)[T][number]['name'];

/**
 * Event fields a use case passes to decide() (decide adds the lists' own). A field it does not pass
 * reads as the type's zero ("" / 0 / false), so a condition never fails for a missing field.
 */
export const EVENT_FIELDS: Record<EventType, readonly FieldDeclaration[]> = {
  order: [...OWN_FIELDS.order, ...IDENTITY_TIME_FIELDS, ...LIST_FIELDS],
  return: [...OWN_FIELDS.return, ...IDENTITY_TIME_FIELDS, ...LIST_FIELDS],
  signup: [...OWN_FIELDS.signup, ...IDENTITY_TIME_FIELDS, ...LIST_FIELDS],
  login: [...OWN_FIELDS.login, ...IDENTITY_TIME_FIELDS, ...LIST_FIELDS],
  account: [...OWN_FIELDS.account, ...IDENTITY_TIME_FIELDS, ...LIST_FIELDS],
};

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const catalogs = new Map<EventType, readonly WorkflowVariable[]>();

/**
 * The catalog of one event type. Its signals are the names of the default model's weights, which tsc
 * holds to the signals the type declares (models.ts, signals/registry.ts): read from the model, not
 * the registry, so a function bundle carries no other event type's signal code. A name taken by the
 * score or a field stays theirs.
 */
export function workflowVariables(eventType: EventType): readonly WorkflowVariable[] {
  const cached = catalogs.get(eventType);
  if (cached) return cached;
  const fields = EVENT_FIELDS[eventType].map((f): WorkflowVariable => ({ ...f, source: 'field' }));
  const taken = new Set([SCORE.name, ...MODEL_THRESHOLDS.map((v) => v.name), ...fields.map((f) => f.name)]);
  const signals = Object.keys(MODELS[eventType]?.weights ?? {})
    .filter((name) => VALID_NAME.test(name) && !taken.has(name))
    .sort()
    .map((name): WorkflowVariable => ({ name, type: 'double', source: 'signal' }));
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
