import type * as z from 'zod';
import type { ErrorCode } from '../errors.ts';
// Types only: the schemas themselves are loaded by what needs them (endpoint-schemas.ts says why).
import type { ENDPOINT_SCHEMAS } from './endpoint-schemas.ts';

/**
 * The API as one registry: one definition per endpoint (its zod schemas in endpoint-schemas.ts, its
 * prose in endpoint-docs.ts, the management API's definitions in management-endpoints.ts). The route
 * table (shared/http/routes.ts), the local adapter, the CDK stack (routes, functions, table access,
 * monitoring), the list of scored event types and the OpenAPI document (scripts/openapi.ts) all read
 * it. The use case that answers an endpoint is bound to its definition in `functions/<name>.ts`,
 * typed by it.
 */

/** The optional header that makes a call of an `idempotency-key-header` endpoint answer once. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** A merchant-level switch an endpoint needs (account updates are off until enabled). */
export type EndpointFeature = 'accountUpdates';

/** How a retried call is recognised, so it is answered once (decisions.md). */
export type IdempotencyPolicy =
  /** A field of the body names the event: the same body replays, another is a 409. */
  | { kind: 'natural-key'; field: string }
  /** An optional Idempotency-Key header binds a call for 24 h. */
  | { kind: 'idempotency-key-header' };

/** A route's way out (decisions.md, Versioning): announced on every response, then 410 `gone`. */
export interface RouteDeprecation {
  /** When the route was (or will be) deprecated, ISO 8601. */
  deprecatedAt: string;
  /** When it stops answering, ISO 8601; contract 8 gives 12 months after deprecation. */
  sunsetAt: string;
  /** The route that replaces it, e.g. `/v2/order`. */
  successorPath: string;
  migrationGuideUrl: string;
}

/**
 * What a key may call (decisions.md, key scopes): `events` keys call the seven event endpoints (every
 * key issued before scopes existed is one), `console` keys the management API behind the dashboard.
 * Checked in one place, shared/auth/authenticate.ts, against the definition's `scope`.
 */
export const KEY_SCOPES = ['events', 'console'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface EndpointDefinition {
  method: HttpMethod;
  /** Which keys may call it; a key of another scope is 403 `forbidden`. */
  scope: KeyScope;
  /** API Gateway resource syntax: `{return-id}` is a path parameter. */
  path: string;
  /** A `text/csv` body instead of JSON, up to this many bytes. */
  csvBody?: { maxBytes: number };
  /** 202 when the answer only accepts work a job finishes (its status at `Location`); default 200. */
  successStatus?: 200 | 202;
  requiredFeature?: EndpointFeature;
  /** How a retry is recognised; management calls are idempotent by their own semantics. */
  idempotency?: IdempotencyPolicy;
  /** The Lambda function serving it, `functions/<lambda>.ts`: its own by default. */
  lambda?: string;
  /**
   * How long the request may keep retrying the store before it answers 503 (default 5 s); a long
   * request (the CSV upload) gets most of its function's time (FUNCTION_TIMEOUT_SECONDS).
   */
  requestBudgetMs?: number;
  /** Set on scored endpoints: the event type its model, workflow and metrics are named by. */
  eventType?: string;
  /** Codes this endpoint answers beyond COMMON_ERRORS (all from the catalog in shared/errors.ts). */
  errors: readonly ErrorCode[];
  /** A request body in examples/, shown in the OpenAPI document. */
  exampleFile?: string;
  /** Set once a successor exists: shared/http/middleware/route-lifecycle.ts announces it, then retires it. */
  deprecation?: RouteDeprecation;
}

/** Codes every endpoint can answer: authentication, validation, limits and capacity. */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'unauthenticated',
  'invalid_api_key',
  'environment_mismatch',
  'forbidden',
  'payload_too_large',
  'unprocessable_entity',
  'unknown_field',
  'rate_limited',
  'internal_error',
  'bad_gateway',
  'service_unavailable',
];

const define = <const T extends EndpointDefinition>(definition: T): T => definition;

export const ENDPOINT_DEFINITIONS = {
  order: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/order',
    idempotency: { kind: 'natural-key', field: 'providerOrderId' },
    eventType: 'order',
    errors: ['invalid_currency_code', 'invalid_timestamp', 'duplicate_order'],
    exampleFile: 'order.json',
  }),
  return: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/return',
    idempotency: { kind: 'natural-key', field: 'providerReturnId' },
    eventType: 'return',
    errors: ['invalid_timestamp', 'order_not_found', 'duplicate_return'],
    exampleFile: 'return.json',
  }),
  disposition: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/return/disposition/{return-id}',
    idempotency: { kind: 'idempotency-key-header' },
    errors: ['unknown_enum_value', 'return_not_found', 'item_not_on_return', 'idempotency_key_reused'],
    exampleFile: 'disposition.json',
  }),
  dispute: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/order/dispute/{order-id}',
    idempotency: { kind: 'idempotency-key-header' },
    errors: [
      'invalid_timestamp',
      'unknown_enum_value',
      'order_not_found',
      'duplicate_dispute_id',
      'idempotency_key_reused',
    ],
    exampleFile: 'dispute.json',
  }),
  signup: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/evaluate/signup',
    idempotency: { kind: 'natural-key', field: 'customerId' },
    eventType: 'signup',
    errors: ['invalid_timestamp', 'duplicate_customer'],
    exampleFile: 'signup.json',
  }),
  login: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/evaluate/login',
    idempotency: { kind: 'idempotency-key-header' },
    eventType: 'login',
    errors: ['invalid_timestamp', 'idempotency_key_reused'],
    exampleFile: 'login.json',
  }),
  account: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/evaluate/account',
    requiredFeature: 'accountUpdates',
    idempotency: { kind: 'idempotency-key-header' },
    eventType: 'account',
    errors: ['endpoint_not_enabled', 'invalid_timestamp', 'idempotency_key_reused'],
    exampleFile: 'account.json',
  }),
};

/**
 * Lambda timeouts by function: 10 s, but the management API's 29 s, API Gateway's longest wait, so
 * checking every row of a 5 MB upload can finish (recording it is a job). The CDK stack and the
 * local adapter both read this.
 */
export const DEFAULT_FUNCTION_TIMEOUT_SECONDS = 10;
export const FUNCTION_TIMEOUT_SECONDS: Readonly<Record<string, number>> = { console: 29 };
export const functionTimeoutSeconds = (functionName: string) =>
  FUNCTION_TIMEOUT_SECONDS[functionName] ?? DEFAULT_FUNCTION_TIMEOUT_SECONDS;

type Definitions = typeof ENDPOINT_DEFINITIONS;
export type EndpointName = keyof Definitions;
export const ENDPOINTS = Object.keys(ENDPOINT_DEFINITIONS) as EndpointName[];

/** The validated body of an endpoint's request, and the body its use case answers with. */
export type RequestOf<N extends EndpointName> = z.output<(typeof ENDPOINT_SCHEMAS)[N]['request']>;
export type ResponseOf<N extends EndpointName> = z.input<(typeof ENDPOINT_SCHEMAS)[N]['response']>;

/** Both registries name the same endpoints (a type check: tsc fails when one misses an endpoint). */
export type SameKeys<A, B> = [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never]
  ? true
  : false;
export type Holds<T extends true> = T;
export type SchemasCoverTheRegistry = Holds<SameKeys<typeof ENDPOINT_SCHEMAS, Definitions>>;

/** Event types that get a decision (dispositions and disputes only report), in registry order. */
export type EventType = Extract<Definitions[EndpointName], { eventType: string }>['eventType'];
export const EVENT_TYPES: readonly EventType[] = ENDPOINTS.flatMap((name) => {
  const definition: EndpointDefinition = ENDPOINT_DEFINITIONS[name];
  return definition.eventType ? [definition.eventType as EventType] : [];
});

/** Every code an endpoint can answer, in catalog order of first mention. */
export function errorsOf(definition: EndpointDefinition): ErrorCode[] {
  return [
    ...new Set([
      ...COMMON_ERRORS,
      ...definition.errors,
      ...(definition.deprecation ? (['gone'] as const) : []),
    ]),
  ];
}
