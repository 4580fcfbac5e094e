import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DEFINITIONS, type ApiEndpointName } from '../shared/contract/management-endpoints.ts';
import { ERROR_ENVELOPE_LIMITS } from '../shared/errors.ts';
import { TIMESTAMP_AFTER_RECEIPT_EXTENSION, WORKFLOW_LIMITS } from '../shared/schemas/fields.ts';
import { type ApiResponse, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { consoleKey } from './support/console.ts';
import { openApiDocument } from './support/contract.ts';
import { type EndpointFixture, prepareFixtures } from './support/endpoint-fixtures.ts';

/**
 * Every bound openapi.json declares on a request, tried over HTTP: generated from the document at
 * test time, so a new endpoint, field or bound is covered without editing this file. For each bound
 * (length, items, minimum/maximum, pattern, enum/const, record key length, the live bound of event
 * times) the value at the bound must not be refused for that field (the answer may still be 200, 404
 * for an unknown reference, 409...), and one past it is 422 naming the field (400 for a header, 413 for
 * a whole body, as the wire rules say). Each endpoint starts from one valid request: its fixture
 * (test/support/endpoint-fixtures.ts), else its example in the document, else the smallest body its
 * schema allows. The suite counts the bounds it found and the ones it exercised; they must agree.
 */
type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  uniqueItems?: boolean;
  propertyNames?: Schema;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  examples?: unknown[];
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  [TIMESTAMP_AFTER_RECEIPT_EXTENSION]?: number;
};
type Json = unknown;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema; examples?: Record<string, { value: Json }> }> };
}

/** One step from a body to one of its values, with the schema of that value. */
interface Step {
  key: string | number;
  schema: Schema;
  /** Which variant of a union the value is (its tag), when it is one. */
  variant?: string;
}

type BoundKind =
  | 'maxLength'
  | 'minLength'
  | 'maxItems'
  | 'minItems'
  | 'minimum'
  | 'maximum'
  | 'pattern'
  | 'enum'
  | 'const'
  | 'keyLength'
  | 'afterReceipt';

interface Bound {
  id: string;
  kind: BoundKind;
  schema: Schema;
  /** Where the value goes: a body path, a path or query parameter, a header. */
  where: { in: 'body'; steps: Step[] } | { in: 'path' | 'query' | 'header'; name: string };
}

/** A value to send and the request field it lands in (array indices are known only once placed). */
interface Trial {
  value: Json;
  label: string;
  /** The key under the bound's field that a refusal names (a record's key). */
  key?: string;
}

const resolve = (schema: Schema): Schema => {
  let current = schema;
  while (current.$ref) {
    const pointer = current.$ref.replace(/^#\//, '').split('/');
    current = pointer.reduce<Json>(
      (node, key) => (node as Record<string, Json>)[key],
      openApiDocument,
    ) as Schema;
  }
  return current;
};

const MARGIN_MS = 60_000;
/**
 * The codes of a value refused by validation. A 422 naming the field with another code is a check of
 * what the value refers to (`item_not_on_return`), made only once the value passed validation.
 */
const VALUE_REFUSALS = [
  'unprocessable_entity',
  'unknown_field',
  'invalid_currency_code',
  'invalid_timestamp',
  'unknown_enum_value',
];
const BOUND_KEYWORDS: BoundKind[] = [
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'minimum',
  'maximum',
  'pattern',
  'enum',
  'const',
];

function boundsOf(schema: Schema): BoundKind[] {
  const kinds = BOUND_KEYWORDS.filter((k) => schema[k as keyof Schema] !== undefined);
  if (schema.exclusiveMinimum !== undefined || schema.exclusiveMaximum !== undefined) {
    throw new Error('exclusive bounds are not tried yet: teach this test before declaring one');
  }
  if (schema.propertyNames?.maxLength !== undefined) kinds.push('keyLength');
  if (schema[TIMESTAMP_AFTER_RECEIPT_EXTENSION] !== undefined) kinds.push('afterReceipt');
  return kinds;
}

/** Every bound of a request body, walking objects, arrays, records and each variant of a union. */
function bodyBounds(root: Schema, prefix: string): Bound[] {
  const found: Bound[] = [];
  const walk = (raw: Schema, steps: Step[]) => {
    const schema = resolve(raw);
    if (steps.length > 0) {
      const where = steps.map((s) => (s.variant ? `${s.key}<${s.variant}>` : s.key));
      for (const kind of boundsOf(schema)) {
        found.push({
          id: `${prefix} body ${where.join('.')} ${kind}`,
          kind,
          schema,
          where: { in: 'body', steps },
        });
      }
    }
    const variants = [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
    variants.forEach((variant, index) => {
      const resolved = resolve(variant);
      const last = steps.at(-1);
      if (!last) throw new Error(`${prefix}: a body that is a union is not tried yet`);
      const tag = Object.values(resolved.properties ?? {})
        .map((p) => resolve(p).const)
        .find((c) => c !== undefined);
      walk(resolved, [
        ...steps.slice(0, -1),
        { key: last.key, schema: resolved, variant: String(tag ?? index) },
      ]);
    });
    for (const part of schema.allOf ?? []) walk(part, steps);
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      walk(property, [...steps, { key, schema: resolve(property) }]);
    }
    if (schema.items) walk(schema.items, [...steps, { key: 0, schema: resolve(schema.items) }]);
    const values = schema.additionalProperties;
    if (values && typeof values === 'object' && boundsOf(resolve(values)).length > 0) {
      walk(values, [...steps, { key: 'key', schema: resolve(values) }]);
    }
  };
  walk(root, []);
  return found;
}

/** `['lineItems', 2, 'unitPrice']` -> `lineItems[2].unitPrice`, as `error.field` names it. */
function fieldOf(keys: readonly (string | number)[]): string {
  let out = '';
  for (const key of keys) out += typeof key === 'number' ? `[${key}]` : out ? `.${key}` : key;
  return out;
}

const patternOf = (schema: Schema) => {
  if (schema.pattern === undefined) return undefined;
  try {
    return new RegExp(schema.pattern, 'u');
  } catch {
    return new RegExp(schema.pattern);
  }
};

/** A valid string of `length` characters (its shortest valid one when not given). */
function sampleString(schema: Schema, length?: number): string {
  const pattern = patternOf(schema);
  const fits = (value: string) =>
    (length === undefined || value.length === length) && (!pattern || pattern.test(value));
  const wanted = length ?? Math.max(schema.minLength ?? 0, pattern ? 1 : 0);
  const byFormat: Record<string, () => string> = {
    email: () => `${'a'.repeat(Math.max(1, wanted - 12))}@example.com`,
    uri: () => `https://example.com/${'a'.repeat(Math.max(1, wanted - 20))}`,
    date: () => '2024-01-31',
    'date-time': () => '2024-01-31T12:00:00.000Z',
  };
  const candidates = [
    // A field's own examples first: they meet rules the schema cannot say (a time in the future).
    ...((schema.examples ?? []).filter((e) => typeof e === 'string') as string[]),
    ...(schema.format && byFormat[schema.format] ? [byFormat[schema.format]!()] : []),
    ...['x', 'a', '1', 'A'].map((c) => c.repeat(wanted)),
  ];
  const found = candidates.find(fits);
  if (found === undefined) {
    throw new Error(
      `no valid value of ${length ?? 'any'} characters for ${JSON.stringify(schema)}: give the field \`examples\` (one at its longest)`,
    );
  }
  return found;
}

/** The same length, but not matching the pattern. */
function mismatch(schema: Schema, valid: string): string {
  const pattern = patternOf(schema)!;
  for (const c of ['!', '~', ' ', 'x', '0', 'é']) {
    const candidate = `${c}${valid.slice(1)}`;
    if (!pattern.test(candidate)) return candidate;
  }
  throw new Error(`cannot break ${schema.pattern} from ${valid}`);
}

/** The smallest value the schema allows: required properties only, the fewest items. */
function minimal(raw: Schema): Json {
  const schema = resolve(raw);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const variant = schema.oneOf?.[0] ?? schema.anyOf?.[0];
  if (variant) return minimal(variant);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part) => minimal(part)));
  if (schema[TIMESTAMP_AFTER_RECEIPT_EXTENSION] !== undefined) {
    return schema.type === 'string' ? String(Date.now() - MARGIN_MS) : Date.now() - MARGIN_MS;
  }
  switch (schema.type) {
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((key) => [key, minimal(schema.properties![key]!)]),
      );
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => minimal(schema.items!));
    case 'string':
      return sampleString(schema);
    case 'integer':
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** Whether `value` is an instance of `schema` as far as a union's tag (its `const` properties) or a closed variant's properties go. */
function fitsVariant(value: Json, schema: Schema): boolean {
  if (schema.type === 'object' || schema.properties) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
    // An untagged union's variants differ by their properties: a closed one takes no others.
    const declared = schema.properties ?? {};
    if (schema.additionalProperties === false && Object.keys(value).some((key) => !(key in declared))) {
      return false;
    }
    return Object.entries(declared).every(([key, property]) => {
      const tag = resolve(property).const;
      return tag === undefined || (value as Record<string, Json>)[key] === tag;
    });
  }
  if (schema.type === 'array') return Array.isArray(value);
  return value !== undefined;
}

/**
 * Puts `value` at `steps` in a copy of `body`, making what is missing on the way (the smallest valid
 * value); where an array's first element is another variant of a union, a new element is appended
 * instead, so the rest of the body stays valid. Returns the body and the field as the API names it.
 */
function place(body: Json, steps: readonly Step[], value: Json): { body: Json; field: string } {
  const copy = structuredClone(body) as Record<string | number, Json>;
  const keys: (string | number)[] = [];
  let parent: Record<string | number, Json> = copy;
  steps.forEach((step, index) => {
    let key = step.key;
    if (
      typeof key === 'number' &&
      Array.isArray(parent) &&
      parent.length > 0 &&
      !fitsVariant(parent[0], step.schema)
    ) {
      key = parent.length;
    }
    keys.push(key);
    if (index === steps.length - 1) {
      parent[key] = value;
      return;
    }
    if (!fitsVariant(parent[key], step.schema)) parent[key] = minimal(step.schema);
    parent = parent[key] as Record<string | number, Json>;
  });
  return { body: copy, field: fieldOf(keys) };
}

const valueAt = (body: Json, steps: readonly Step[]): Json =>
  steps.reduce<Json>((node, step) => (node as Record<string | number, Json> | undefined)?.[step.key], body);

/** The value at the bound and the one past it. */
function trialsOf(bound: Bound, current: Json): { at: Trial[]; past: Trial } {
  const { schema, kind } = bound;
  const asText = schema.type === 'string';
  const time = (ms: number) => (asText ? String(ms) : ms);
  switch (kind) {
    case 'maxLength': {
      const at = sampleString(schema, schema.maxLength);
      return {
        at: [{ value: at, label: `${at.length} chars` }],
        past: { value: `${at}${at.at(-1)}`, label: '+1' },
      };
    }
    case 'minLength': {
      const at = sampleString(schema, schema.minLength);
      return {
        at: [{ value: at, label: `${at.length} chars` }],
        past: { value: at.slice(0, -1), label: '-1' },
      };
    }
    case 'maxItems':
    case 'minItems': {
      const item = Array.isArray(current) && current.length > 0 ? current[0] : minimal(schema.items!);
      const n = kind === 'maxItems' ? schema.maxItems! : schema.minItems!;
      // Items that must differ (`uniqueItems`) take the enum's values in turn, one past it repeats one.
      const choices = schema.uniqueItems ? resolve(schema.items!).enum : undefined;
      const copies = (count: number) =>
        Array.from({ length: count }, (_, i) =>
          choices ? choices[i % choices.length]! : structuredClone(item),
        );
      return {
        at: [{ value: copies(n), label: `${n} items` }],
        past: {
          value: copies(kind === 'maxItems' ? n + 1 : n - 1),
          label: kind === 'maxItems' ? '+1' : '-1',
        },
      };
    }
    case 'minimum':
      return {
        at: [{ value: schema.minimum, label: String(schema.minimum) }],
        past: { value: schema.minimum! - 1, label: '-1' },
      };
    case 'maximum': {
      const after = schema[TIMESTAMP_AFTER_RECEIPT_EXTENSION];
      // An event time's `maximum` is a ceiling above the live bound: the latest accepted time is
      // tried at the live bound (afterReceipt), and past the ceiling is refused like past any bound.
      const at = after === undefined ? schema.maximum! : Date.now() + after - MARGIN_MS;
      return { at: [{ value: at, label: String(at) }], past: { value: schema.maximum! + 1, label: '+1' } };
    }
    case 'afterReceipt': {
      const after = schema[TIMESTAMP_AFTER_RECEIPT_EXTENSION]!;
      return {
        at: [{ value: time(Date.now() + after - MARGIN_MS), label: 'receipt + bound - 1 min' }],
        past: { value: time(Date.now() + after + MARGIN_MS), label: 'receipt + bound + 1 min' },
      };
    }
    case 'pattern': {
      const at = sampleString(schema);
      return { at: [{ value: at, label: at }], past: { value: mismatch(schema, at), label: 'mismatch' } };
    }
    case 'enum':
      return {
        at: schema.enum!.map((value) => ({ value, label: String(value) })),
        past: { value: `${String(schema.enum![0])}-not-a-value`, label: 'outside' },
      };
    case 'const':
      return {
        at: [{ value: schema.const, label: String(schema.const) }],
        past: { value: `${String(schema.const)}x`, label: 'other' },
      };
    case 'keyLength': {
      const length = schema.propertyNames!.maxLength!;
      const entry = (key: string) => ({
        value: { [key]: minimal((schema.additionalProperties as Schema) ?? {}) },
        key,
      });
      return {
        at: [{ ...entry('k'.repeat(length)), label: `${length}-char key` }],
        past: { ...entry('k'.repeat(length + 1)), label: '+1' },
      };
    }
  }
}

/* ---------------- the endpoints, their requests and their bounds ---------------- */

interface OperationCase {
  name: ApiEndpointName;
  method: string;
  template: string;
  operation: Operation;
  bounds: Bound[];
}

const operations: OperationCase[] = [];
for (const [template, methods] of Object.entries(openApiDocument.paths)) {
  for (const [method, raw] of Object.entries(methods)) {
    const operation = raw as unknown as Operation;
    const name = operation.operationId as ApiEndpointName;
    const prefix = `${method.toUpperCase()} ${template}`;
    const bounds: Bound[] = [];
    for (const parameter of operation.parameters ?? []) {
      for (const kind of boundsOf(resolve(parameter.schema))) {
        bounds.push({
          id: `${prefix} ${parameter.in} ${parameter.name} ${kind}`,
          kind,
          schema: resolve(parameter.schema),
          where: { in: parameter.in, name: parameter.name },
        });
      }
    }
    for (const [mediaType, { schema }] of Object.entries(operation.requestBody?.content ?? {})) {
      if (mediaType === 'application/json') bounds.push(...bodyBounds(schema, prefix));
      else {
        // A body that is text (the CSV upload): its length is its size, refused past it with 413.
        for (const kind of boundsOf(resolve(schema))) {
          bounds.push({
            id: `${prefix} body (text) ${kind}`,
            kind,
            schema: resolve(schema),
            where: { in: 'body', steps: [] },
          });
        }
      }
    }
    if (bounds.length > 0)
      operations.push({ name, method: method.toUpperCase(), template, operation, bounds });
  }
}
const declared = operations.flatMap((o) => o.bounds.map((b) => b.id));
const exercised = new Set<string>();

let api: TestApi;
let keys: { events: string; console: string };
let fixtures: EndpointFixture[];

beforeAll(async () => {
  api = await startTestApi();
  const merchant = await newMerchant({ accountUpdatesEnabled: true });
  keys = { events: merchant.apiKey, console: await consoleKey(merchant.merchantId) };
  fixtures = await prepareFixtures(api, merchant.apiKey);
});
afterAll(() => api.close());

/** A valid request of the endpoint: fresh ids each time where its fixture makes them. */
function baseRequest(op: OperationCase): { params: Record<string, string>; body: Json } {
  const fixture = fixtures.find((f) => f.endpoint === op.name);
  const params: Record<string, string> = {};
  let body: Json;
  if (fixture) {
    const request = fixture.validRequest();
    const sent = request.path.split('/');
    op.template.split('/').forEach((segment, i) => {
      const name = /^\{(.+)\}$/.exec(segment)?.[1];
      if (name) params[name] = decodeURIComponent(sent[i]!);
    });
    body = request.body;
  } else {
    for (const parameter of op.operation.parameters ?? []) {
      if (parameter.in === 'path') {
        params[parameter.name] = sampleString(
          resolve(parameter.schema),
          Math.max(1, resolve(parameter.schema).minLength ?? 1),
        );
      }
    }
    const json = op.operation.requestBody?.content['application/json'];
    const example = Object.values(json?.examples ?? {})[0]?.value;
    body = json ? (example !== undefined ? structuredClone(example) : minimal(json.schema)) : undefined;
  }
  return { params, body };
}

async function send(
  op: OperationCase,
  change: {
    params?: Record<string, string>;
    query?: Record<string, string>;
    header?: Record<string, string>;
    body?: Json;
    text?: string;
  },
): Promise<ApiResponse> {
  const base = baseRequest(op);
  const params = { ...base.params, ...change.params };
  const path = op.template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name]!));
  const query = new URLSearchParams(change.query ?? {}).toString();
  const scope = API_DEFINITIONS[op.name].scope;
  const isText = op.operation.requestBody && !op.operation.requestBody.content['application/json'];
  const rawBody =
    change.text ??
    // A text body starts as the CSV upload's header line alone.
    (isText ? 'returnId,identifierType,identifier,returnedItemCondition,dispositionOutcome\n' : undefined) ??
    (change.body !== undefined || base.body !== undefined
      ? JSON.stringify(change.body ?? base.body)
      : undefined);
  const request = () =>
    api.request(op.method, `${path}${query ? `?${query}` : ''}`, {
      apiKey: keys[scope],
      headers: { ...(isText ? { 'Content-Type': 'text/csv' } : {}), ...change.header },
      ...(rawBody !== undefined ? { rawBody } : {}),
    });
  // A 429 says nothing of the bound: wait as told, as a client would, and send again.
  for (let attempt = 1; ; attempt++) {
    const response = await request();
    if (response.status !== 429 || attempt === 3) return response;
    await new Promise((resolve) =>
      setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 1)),
    );
  }
}

/** Sends `value` where the bound lies; returns the answer and the field a refusal must name. */
async function trySend(
  op: OperationCase,
  bound: Bound,
  trial: Trial,
): Promise<{ response: ApiResponse; field: string }> {
  const { where } = bound;
  const named = (field: string) => (trial.key === undefined ? field : `${field}.${trial.key}`);
  if (where.in === 'body') {
    if (where.steps.length === 0)
      return { response: await send(op, { text: String(trial.value) }), field: '(body)' };
    const placed = place(baseRequest(op).body, where.steps, trial.value);
    return { response: await send(op, { body: placed.body }), field: named(placed.field) };
  }
  const text = String(trial.value);
  const change = { path: 'params', query: 'query', header: 'header' } as const;
  return { response: await send(op, { [change[where.in]]: { [where.name]: text } }), field: where.name };
}

/** Runs `work` over `items`, a few at a time (DynamoDB Local shares two cores with the other suites). */
async function inBatches<T>(items: readonly T[], work: (item: T) => Promise<void>, size = 8): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(work));
}

describe('every bound openapi.json declares on a request: at it accepted, one past it refused naming the field', () => {
  it('finds bounds in the document', () => {
    expect(declared.length).toBeGreaterThan(100);
    expect(new Set(declared).size, 'each bound is found once').toBe(declared.length);
  });

  it.each(operations.map((op) => [`${op.method} ${op.template}`, op] as const))('%s', async (_label, op) => {
    const base = await send(op, {});
    expect([400, 413], `the base request of ${op.name} is valid: ${base.text.slice(0, 300)}`).not.toContain(
      base.status,
    );
    await inBatches(op.bounds, async (bound) => {
      const current =
        bound.where.in === 'body' ? valueAt(baseRequest(op).body, bound.where.steps) : undefined;
      const { at, past } = trialsOf(bound, current);
      for (const trial of at) {
        const { response, field } = await trySend(op, bound, trial);
        const refusedHere =
          response.status === 422 &&
          response.body?.error?.field === field &&
          VALUE_REFUSALS.includes(response.body.error.code);
        expect(
          refusedHere || response.status === 413,
          `${bound.id} at ${trial.label}: ${response.status} ${response.text.slice(0, 300)}`,
        ).toBe(false);
      }
      const { response, field } = await trySend(op, bound, past);
      const expected =
        bound.where.in === 'header'
          ? 400
          : bound.where.in === 'body' && bound.where.steps.length === 0
            ? 413
            : 422;
      expect(response.status, `${bound.id} past it (${past.label}): ${response.text.slice(0, 300)}`).toBe(
        expected,
      );
      if (expected !== 413)
        expect(response.body.error.field, `${bound.id} past it names the field`).toBe(field);
      exercised.add(bound.id);
    });
  });

  it('exercised every bound it found', () => {
    expect(declared.filter((id) => !exercised.has(id))).toEqual([]);
    console.info(`openapi bounds: ${exercised.size} of ${declared.length} request bounds exercised`);
  });
});

describe('answers stay within the bounds the document declares for them (checked against it on every response)', () => {
  it('an unknown key past the field bound is named cut to it', async () => {
    const { body } = fixtures.find((f) => f.endpoint === 'order')!.validRequest();
    const key = 'k'.repeat(5_000);
    const response = await api.post('/v1/order', { ...body, [key]: 1 }, { apiKey: keys.events });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('unknown_field');
    expect(response.body.error.field).toBe(`${'k'.repeat(ERROR_ENVELOPE_LIMITS.fieldLength - 1)}…`);
  });

  it('a workflow with more problems than a validation lists says how many more', async () => {
    // Three problems in each of the rules a workflow may have.
    const rules = Array.from({ length: WORKFLOW_LIMITS.rules }, (_, i) => ({
      name: `${i}-starts-with-a-digit`,
      decision: 'MAYBE',
      condition: '',
    }));
    const response = await api.request('POST', '/v1/workflows/order/validate', {
      apiKey: keys.console,
      rawBody: JSON.stringify({ workflow: { rules, defaultBranch: { name: 'ok', decision: 'APPROVE' } } }),
    });
    expect(response.status).toBe(200);
    expect(response.body.errors).toHaveLength(WORKFLOW_LIMITS.problemsListed);
    expect(response.body.errors.at(-1)).toMatch(/^…and \d+ more problems$/);
  });
});
