import fc from 'fast-check';
import type { EndpointFixture } from './endpoint-fixtures.ts';

/**
 * Hostile requests for the property suites (test/fuzz.test.ts) and `npm run fuzz`: arbitrary JSON,
 * valid payloads with fields dropped, retyped, oversized, made exotic unicode, nested deep or given
 * `__proto__`/`constructor` keys, numeric strings made huge, strings and keys given a lone surrogate,
 * path ids with malformed percent-encoding, and bad headers. A generated case is data (a plan),
 * turned into a request against a fixture's fresh valid body, so fast-check can print it.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string | undefined;
}

type Mutation =
  | { op: 'drop'; at: number }
  | { op: 'replace'; at: number; value: Json }
  | { op: 'oversizeString'; at: number; length: number; char: string }
  | { op: 'oversizeArray'; at: number; extra: number }
  | { op: 'deepNest'; at: number; depth: number }
  | { op: 'addKey'; at: number; key: string; value: Json }
  | { op: 'hugeNumber'; at: number; value: string }
  | { op: 'loneSurrogate'; at: number; inKey: boolean; position: number; unit: number };

type AuthVariant = 'valid' | 'missing' | 'bearer' | 'padded' | 'other-environment' | 'malformed' | 'unknown';

export interface HeaderPlan {
  auth: AuthVariant;
  contentType: string | undefined;
  idempotencyKey: string | undefined;
  extra: Record<string, string>;
}

export type FuzzCase =
  | { kind: 'arbitrary-json'; rawBody: string; headers: HeaderPlan }
  | { kind: 'mutated'; mutations: Mutation[]; headers: HeaderPlan }
  | { kind: 'bad-headers'; headers: HeaderPlan }
  | { kind: 'bad-path'; segment: string; headers: HeaderPlan };

/** Strings a merchant's integration should never send, but an attacker will. */
const exoticString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }), // lone surrogates included
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\u202e\u0041',
    '\ud800',
    '\udfff',
    'é'.normalize('NFD'),
    '😀'.repeat(300),
  ),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '$where',
    '$' + '{x}',
  ),
);

const oddNumber = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1e-320, 5e-324, 1e308, -1e308, 2 ** 53 + 2, 1e21, 0.1 + 0.2, -1),
  fc.integer(),
);

const anyJson: fc.Arbitrary<Json> = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
  exoticString,
  oddNumber,
  fc.constantFrom<Json>(null, true, false, [], {}),
);

/**
 * Decimal strings past what a double holds exactly (2^53) and past the amount bound (18 integer
 * digits, 8 decimals), in the shapes an integration might send them.
 */
const hugeNumericString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '9007199254740991',
    '9007199254740992',
    '9007199254740993',
    '99999999999999999.99',
    '999999999999999999.99999999',
    '1000000000000000000',
    '1e21',
    '1E+308',
    '-1',
    '0.000000001',
    '00000000000000000001',
    '18446744073709551616',
  ),
  fc
    .tuple(
      fc.integer({ min: 1, max: 9 }),
      fc.stringMatching(/^\d{14,40}$/),
      fc.stringMatching(/^(\.\d{1,12})?$/),
    )
    .map(([lead, digits, decimals]) => `${lead}${digits}${decimals}`),
);

/** High surrogates pair with a following low one; either alone is not Unicode. */
const surrogateUnit = fc.oneof(
  fc.integer({ min: 0xd800, max: 0xdbff }),
  fc.integer({ min: 0xdc00, max: 0xdfff }),
);

/**
 * A path id with percent-encoding that does not decode to UTF-8 text: bare or cut-off escapes,
 * non-hex digits, overlong forms, encoded surrogates, stray continuation bytes, around plain text
 * (which now and then completes a cut-off escape, `%2` + `6...`: `decodesAsPath` tells).
 */
const malformedPathSegment: fc.Arbitrary<string> = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z0-9_-]{0,8}$/),
    fc.oneof(
      fc.constantFrom(
        '%',
        '%E0%A4%A',
        '%ZZ',
        '%C0%AF',
        '%ED%A0%80',
        '%FF',
        '%2',
        '%80',
        '%F4%90%80%80',
        '%%',
      ),
      fc.stringMatching(/^%[0-9A-Fa-f]?[G-Zg-z%]$/),
      fc
        .array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 4 })
        .map((bytes) => bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join(''))
        .filter((encoded) => !decodesAsPath(encoded)),
    ),
    fc.stringMatching(/^[A-Za-z0-9_-]{0,8}$/),
  )
  .map(([before, bad, after]) => `${before}${bad}${after}`);

const hugeNumberMutation = fc.record({
  op: fc.constant('hugeNumber' as const),
  at: fc.nat(),
  value: hugeNumericString,
});
const loneSurrogateMutation = fc.record({
  op: fc.constant('loneSurrogate' as const),
  at: fc.nat(),
  inKey: fc.boolean(),
  position: fc.nat(),
  unit: surrogateUnit,
});

/** Whether a path segment decodes after all (then it is an ordinary id). */
export function decodesAsPath(segment: string): boolean {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
}

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value: anyJson }),
  fc.record({
    op: fc.constant('oversizeString' as const),
    at: fc.nat(),
    length: fc.integer({ min: 257, max: 3000 }),
    char: fc.constantFrom('x', 'é', '😀', '\u0000'),
  }),
  fc.record({
    op: fc.constant('oversizeArray' as const),
    at: fc.nat(),
    extra: fc.integer({ min: 1, max: 300 }),
  }),
  fc.record({
    op: fc.constant('deepNest' as const),
    at: fc.nat(),
    // Mostly around the 32-level bound, sometimes deep enough to overflow a recursive parser.
    depth: fc.oneof(
      { arbitrary: fc.integer({ min: 20, max: 100 }), weight: 8 },
      { arbitrary: fc.integer({ min: 100, max: 50_000 }), weight: 1 },
    ),
  }),
  fc.record({
    op: fc.constant('addKey' as const),
    at: fc.nat(),
    key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', '__defineGetter__'), fc.string()),
    value: anyJson,
  }),
  hugeNumberMutation,
  loneSurrogateMutation,
);

const printableAscii = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));

/** Header values: Latin-1 without CR, LF or NUL (what an HTTP client can put on the wire). */
const headerValue = fc
  .string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f)
      .map((c) => String.fromCharCode(c)),
    maxLength: 300,
  })
  // Clients send values trimmed (fetch refuses leading or trailing whitespace).
  .map((value) => value.trim());

export const headerPlan: fc.Arbitrary<HeaderPlan> = fc.record({
  auth: fc.constantFrom<AuthVariant>(
    'valid',
    'valid',
    'valid',
    'missing',
    'bearer',
    'padded',
    'other-environment',
    'malformed',
    'unknown',
  ),
  contentType: fc.option(
    fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/octet-stream',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ),
    { nil: undefined },
  ),
  idempotencyKey: fc.option(
    fc.oneof(
      headerValue,
      fc.string({ unit: printableAscii, maxLength: 300 }).map((value) => value.trim()),
      fc.constantFrom('', 'tab\there'),
    ),
    { nil: undefined },
  ),
  extra: fc.dictionary(fc.stringMatching(/^X-Fuzz-[A-Za-z0-9-]{1,20}$/), headerValue, { maxKeys: 3 }),
});

const validHeaders: HeaderPlan = {
  auth: 'valid',
  contentType: 'application/json',
  idempotencyKey: undefined,
  extra: {},
};

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  fc.record({
    kind: fc.constant('arbitrary-json' as const),
    rawBody: fc.oneof(
      fc.json({ maxDepth: 4 }),
      fc.dictionary(exoticString, anyJson).map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 200 }),
      fc.constantFrom('', ' ', '{', '{"a":}', 'null', '[]', '"text"', '{"__proto__":{"polluted":true}}'),
    ),
    headers: fc.constant(validHeaders),
  }),
  fc.record({
    kind: fc.constant('mutated' as const),
    mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }),
    headers: fc.oneof(fc.constant(validHeaders), headerPlan),
  }),
  fc.record({ kind: fc.constant('bad-headers' as const), headers: headerPlan }),
  fc.record({
    kind: fc.constant('bad-path' as const),
    segment: malformedPathSegment,
    headers: fc.oneof(fc.constant(validHeaders), headerPlan),
  }),
);

/** Turns a case into a request on the fixture's endpoint, authenticated per its header plan. */
export function toRequest(fuzz: FuzzCase, fixture: EndpointFixture, apiKey: string): FuzzRequest {
  const valid = fixture.validRequest();
  const body =
    fuzz.kind === 'arbitrary-json'
      ? fuzz.rawBody
      : serialize(fuzz.kind === 'mutated' ? mutate(valid.body as Json, fuzz.mutations) : valid.body);
  const path = fuzz.kind === 'bad-path' ? withBadSegment(valid.path, fuzz.segment) : valid.path;
  return { method: 'POST', path, headers: headersOf(fuzz.headers, apiKey), rawBody: body };
}

/** The path with its id (`/v1/order/dispute/{order-id}`) replaced, or with a segment added. */
function withBadSegment(path: string, segment: string): string {
  const parts = path.split('/');
  return parts.length > 4 ? [...parts.slice(0, -1), segment].join('/') : `${path}/${segment}`;
}

function headersOf(plan: HeaderPlan, apiKey: string): Record<string, string> {
  const headers: Record<string, string> = { ...plan.extra };
  if (plan.contentType !== undefined) headers['Content-Type'] = plan.contentType;
  if (plan.idempotencyKey !== undefined) headers['Idempotency-Key'] = plan.idempotencyKey;
  const authorization: Record<AuthVariant, string | undefined> = {
    valid: apiKey,
    missing: undefined,
    bearer: `Bearer ${apiKey}`,
    padded: `  ${apiKey}  `,
    'other-environment': apiKey.replace('pk_test_', 'pk_live_'),
    malformed: `${apiKey.slice(0, 12)}!`,
    unknown: `pk_test_${'Z'.repeat(40)}`,
  };
  const value = authorization[plan.auth];
  if (value !== undefined) headers.Authorization = value;
  return headers;
}

const DEEP_MARKER = '\u0001deep-nest:';
/** Largest body text a mutation aims for: past both the API's 256 KiB and the gateway's 10 MB. */
const MAX_BODY_TEXT = 12 * 1024 * 1024;

/** JSON text of a mutated body, with each deep-nest marker expanded into that many levels. */
function serialize(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001deep-nest:(\d+)"/g, (_match, depth: string) => {
    // Levels alternate object and array: {"v":[{"v":[ ... 0 ... ]}]}
    const levels = Number(depth);
    const pairs = Math.floor(levels / 2);
    const odd = levels % 2 === 1;
    return `${'{"v":['.repeat(pairs)}${odd ? '{"v":' : ''}0${odd ? '}' : ''}${']}'.repeat(pairs)}`;
  });
}

/** Every node of a JSON value by path (the root included), in a stable order. */
function pathsOf(value: Json, path: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(path);
  if (Array.isArray(value)) {
    for (const [i, child] of value.entries()) pathsOf(child, [...path, i], out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) pathsOf(child, [...path, key], out);
  }
  return out;
}

function getAt(root: Json, path: readonly (string | number)[]): Json {
  let node = root;
  for (const part of path) node = (node as Record<string | number, Json>)[part] as Json;
  return node;
}

/** Sets an own property even for `__proto__`, as JSON.parse would, so the key reaches the wire. */
function setOwn(target: Record<string, Json> | Json[], key: string | number, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function mutate(valid: Json, mutations: readonly Mutation[]): Json {
  let root = structuredClone(valid);
  for (const m of mutations) {
    const paths = pathsOf(root);
    const path = paths[m.at % paths.length]!;
    const node = getAt(root, path);
    const replace = (value: Json) => {
      if (path.length === 0) root = value;
      else setOwn(getAt(root, path.slice(0, -1)) as Record<string, Json>, path.at(-1)!, value);
    };
    switch (m.op) {
      case 'drop': {
        if (path.length === 0) break;
        const parent = getAt(root, path.slice(0, -1));
        if (Array.isArray(parent)) parent.splice(Number(path.at(-1)), 1);
        else delete (parent as Record<string, Json>)[path.at(-1) as string];
        break;
      }
      case 'replace':
        // Cloned: fast-check hands out its constants ({}, []) as shared instances.
        replace(structuredClone(m.value));
        break;
      case 'oversizeString':
        replace(typeof node === 'string' ? node + m.char.repeat(m.length) : m.char.repeat(m.length));
        break;
      case 'oversizeArray': {
        const element = Array.isArray(node) && node.length > 0 ? node[0]! : node;
        // Copies stop at a little over the gateway's 10 MB, so stacked mutations cannot grow without end.
        const extra = Math.min(m.extra, Math.ceil(MAX_BODY_TEXT / Math.max(1, serialize(element).length)));
        const copies = Array.from({ length: extra }, () => structuredClone(element));
        replace(Array.isArray(node) ? [...node, ...copies] : copies);
        break;
      }
      case 'deepNest':
        // A marker, expanded as text by `serialize`: JSON.stringify itself overflows the stack.
        replace(`${DEEP_MARKER}${m.depth}`);
        break;
      case 'addKey': {
        const value = structuredClone(m.value);
        if (node !== null && typeof node === 'object' && !Array.isArray(node)) setOwn(node, m.key, value);
        else replace({ [m.key]: value });
        break;
      }
      case 'hugeNumber': {
        // Aimed at the numeric strings (amounts, quantities, timestamps) when the body has any.
        const numeric = paths.filter((p) => /^\d+(\.\d+)?$/.test(String(getAt(root, p))));
        const target = numeric.length > 0 ? numeric[m.at % numeric.length]! : path;
        if (target.length === 0) root = m.value;
        else setOwn(getAt(root, target.slice(0, -1)) as Record<string, Json>, target.at(-1)!, m.value);
        break;
      }
      case 'loneSurrogate': {
        const unit = String.fromCharCode(m.unit);
        const strings = paths.filter((p) => p.length > 0 && typeof getAt(root, p) === 'string');
        const target = strings.length > 0 ? strings[m.at % strings.length]! : path;
        if (target.length === 0) break;
        const parent = getAt(root, target.slice(0, -1)) as Record<string, Json>;
        const key = target.at(-1)!;
        const text = String(getAt(root, target));
        const at = m.position % (text.length + 1);
        if (m.inKey && typeof key === 'string') {
          const value = parent[key]!;
          delete parent[key];
          setOwn(
            parent,
            `${key.slice(0, at % (key.length + 1))}${unit}${key.slice(at % (key.length + 1))}`,
            value,
          );
        } else setOwn(parent, key, `${text.slice(0, at)}${unit}${text.slice(at)}`);
        break;
      }
    }
  }
  return root;
}

/** Cases of the classes issue 17 found, for a property of their own: each alone, under valid headers. */
export const hostileValueCase: fc.Arbitrary<FuzzCase> = fc.oneof(
  ...[hugeNumberMutation, loneSurrogateMutation].map((one: fc.Arbitrary<Mutation>) =>
    fc.record({
      kind: fc.constant('mutated' as const),
      mutations: one.map((m) => [m]),
      headers: fc.constant(validHeaders),
    }),
  ),
  fc.record({
    kind: fc.constant('bad-path' as const),
    segment: malformedPathSegment,
    headers: fc.constant(validHeaders),
  }),
);
