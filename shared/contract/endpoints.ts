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
/** Its value: 1 to 255 printable ASCII characters (shared/http/headers.ts checks, the document says). */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IDEMPOTENCY_KEY_PATTERN = new RegExp(`^[\\x20-\\x7E]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`);

/** A merchant-level switch an endpoint needs (account updates are off until enabled). */
export type EndpointFeature = 'accountUpdates';

/** How a retried call is recognised, so it is answered once (docs/decisions.md, Idempotency). */
type IdempotencyPolicy = NaturalKeyPolicy | { kind: 'idempotency-key-header' };

/**
 * A field of the body names the event: the same body (compared canonically) replays the first
 * answer, a body differing only in `statusFields` records the new status and answers as the first
 * time, any other body is the `conflict` 409. Read by shared/use-cases/natural-key-repeats.ts.
 */
export interface NaturalKeyPolicy {
  kind: 'natural-key';
  field: string;
  statusFields: readonly string[];
  conflict: { code: ErrorCode; message: string };
}

/** A route's way out (docs/decisions.md, Versioning): announced on every response, then 410 `gone`. */
export interface RouteDeprecation {
  /** When the route was (or will be) deprecated, ISO 8601. */
  deprecatedAt: string;
  /** When it stops answering, ISO 8601; 12 months after deprecation (docs/decisions.md). */
  sunsetAt: string;
  /** The route that replaces it, e.g. `/v2/order`. */
  successorPath: string;
  migrationGuideUrl: string;
}

/**
 * What a key may call (docs/decisions.md, Key scopes): `events` keys call the seven event endpoints (every
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
  /** Set once a successor exists: shared/http/middleware/route-lifecycle.ts announces it, then retires it. */
  deprecation?: RouteDeprecation;
}

const define = <const T extends EndpointDefinition>(definition: T): T => definition;

export const ENDPOINT_DEFINITIONS = {
  order: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/order',
    idempotency: {
      kind: 'natural-key',
      field: 'providerOrderId',
      statusFields: ['state', 'timestamp'],
      conflict: {
        code: 'duplicate_order',
        message: 'An order with this providerOrderId was already recorded with a different body.',
      },
    },
    eventType: 'order',
  }),
  return: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/return',
    idempotency: {
      kind: 'natural-key',
      field: 'providerReturnId',
      statusFields: ['status', 'timestamp'],
      conflict: {
        code: 'duplicate_return',
        message: 'A return with this providerReturnId was already recorded with a different body.',
      },
    },
    eventType: 'return',
  }),
  disposition: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/return/disposition/{return-id}',
    idempotency: { kind: 'idempotency-key-header' },
  }),
  dispute: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/order/dispute/{order-id}',
    idempotency: { kind: 'idempotency-key-header' },
  }),
  signup: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/evaluate/signup',
    idempotency: {
      kind: 'natural-key',
      field: 'customerId',
      statusFields: [],
      conflict: {
        code: 'duplicate_customer',
        message: 'A signup with this customerId was already recorded with a different body.',
      },
    },
    eventType: 'signup',
  }),
  login: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/evaluate/login',
    idempotency: { kind: 'idempotency-key-header' },
    eventType: 'login',
  }),
  account: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/evaluate/account',
    requiredFeature: 'accountUpdates',
    idempotency: { kind: 'idempotency-key-header' },
    eventType: 'account',
  }),
};

/**
 * Lambda timeouts by function: 10 s, but the management API's 29 s, API Gateway's longest wait, so
 * checking every row of a 5 MB upload can finish (recording it is a job). The CDK stack and the
 * local adapter both read this.
 */
const DEFAULT_FUNCTION_TIMEOUT_SECONDS = 10;
/**
 * Feedback that puts many entries on the lists (100 lost fraud chargebacks on an order of 60
 * identities: 6,000 entries) writes them in steps before it answers (shared/store/list-entries.ts
 * saveListChangesInSteps): those functions get API Gateway's whole 29 s.
 */
const FUNCTION_TIMEOUT_SECONDS: Readonly<Record<string, number>> = {
  console: 29,
  dispute: 29,
  disposition: 29,
};
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
/** @public Checked by tsc, imported by nothing. */
export type SchemasCoverTheRegistry = Holds<SameKeys<typeof ENDPOINT_SCHEMAS, Definitions>>;

/** Event types that get a decision (dispositions and disputes only report), in registry order. */
export type EventType = Extract<Definitions[EndpointName], { eventType: string }>['eventType'];
export const EVENT_TYPES: readonly EventType[] = ENDPOINTS.flatMap((name) => {
  const definition: EndpointDefinition = ENDPOINT_DEFINITIONS[name];
  return definition.eventType ? [definition.eventType as EventType] : [];
});
