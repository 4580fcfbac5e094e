import type * as z from 'zod';
import type { ErrorCode } from '../errors.ts';
// Types only: the schemas themselves are loaded by what needs them (endpoint-schemas.ts says why).
import type { ENDPOINT_SCHEMAS, MANAGEMENT_ENDPOINT_SCHEMAS } from './endpoint-schemas.ts';

/**
 * The API as one registry: one definition per endpoint (its zod schemas in endpoint-schemas.ts). The route table (shared/http/routes.ts),
 * the local adapter, the CDK stack (routes, functions, table access, monitoring), the list of
 * scored event types and the OpenAPI document (scripts/openapi.ts) all read it. The use case that
 * answers an endpoint is bound to its definition in `functions/<name>.ts`, typed by it.
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
  summary: string;
  description: string;
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
    summary: 'Score an order',
    description:
      'Records the order, updates customer variables, runs the orders workflow and returns the decision.',
    idempotency: { kind: 'natural-key', field: 'providerOrderId' },
    eventType: 'order',
    errors: ['invalid_currency_code', 'invalid_timestamp', 'duplicate_order'],
    exampleFile: 'order.json',
  }),
  return: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/return',
    summary: 'Score a return',
    description: 'Evaluates the return against the returns workflow; one decision per returned line item.',
    idempotency: { kind: 'natural-key', field: 'providerReturnId' },
    eventType: 'return',
    errors: ['invalid_timestamp', 'order_not_found', 'duplicate_return'],
    exampleFile: 'return.json',
  }),
  disposition: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/return/disposition/{return-id}',
    summary: 'Report the inspection outcome of returned items',
    description: 'Reporting only; no decision. `{return-id}` is the providerReturnId of the original return.',
    idempotency: { kind: 'idempotency-key-header' },
    errors: ['unknown_enum_value', 'return_not_found', 'item_not_on_return', 'idempotency_key_reused'],
    exampleFile: 'disposition.json',
  }),
  dispute: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/order/dispute/{order-id}',
    summary: 'Report a payment dispute or its outcome',
    description: 'Reporting only; no decision. `{order-id}` is the providerOrderId of the original order.',
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
    summary: 'Score a new account',
    description: 'Evaluates a newly created account.',
    idempotency: { kind: 'natural-key', field: 'customerId' },
    eventType: 'signup',
    errors: ['invalid_timestamp', 'duplicate_customer'],
    exampleFile: 'signup.json',
  }),
  login: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/evaluate/login',
    summary: 'Score a login attempt',
    description: 'Called on every login attempt, successful or failed.',
    idempotency: { kind: 'idempotency-key-header' },
    eventType: 'login',
    errors: ['invalid_timestamp', 'idempotency_key_reused'],
    exampleFile: 'login.json',
  }),
  account: define({
    method: 'POST',
    scope: 'events',
    path: '/v1/evaluate/account',
    summary: 'Score an account change',
    description: 'Available only on accounts where it has been enabled on request.',
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

/** 5 MB: a month of one warehouse's inspections; API Gateway takes up to 10 MB. */
export const MAX_CSV_UPLOAD_BYTES = 5 * 1024 * 1024;

/** The management API (contract 9.3), called by the dashboard and by scripts with a console key. */
const consoleEndpoint = <const T extends Omit<EndpointDefinition, 'scope' | 'lambda'>>(definition: T) =>
  ({ ...definition, scope: 'console', lambda: 'console' }) as const;

export const MANAGEMENT_ENDPOINT_DEFINITIONS = {
  consoleSignIn: consoleEndpoint({
    method: 'POST',
    path: '/v1/console/session',
    summary: 'Sign in to the console',
    description:
      'Exchanges the console key in Authorization for a session (12 h) carried in an HttpOnly; Secure; SameSite=Strict cookie; the key itself is never kept by the browser.',
    errors: [],
  }),
  consoleSignOut: consoleEndpoint({
    method: 'DELETE',
    path: '/v1/console/session',
    summary: 'Sign out of the console',
    description: 'Ends the session of the cookie and clears the cookie.',
    errors: [],
  }),
  reviewList: consoleEndpoint({
    method: 'GET',
    path: '/v1/reviews',
    summary: 'List reviews',
    description: 'The review queue, oldest first, filtered by status (default open) and event type.',
    errors: [],
  }),
  reviewShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/reviews/{review-id}',
    summary: 'Show a review with its explanation',
    description: 'The review and the explanation of the decision(s) that put the event into the queue.',
    errors: ['not_found'],
  }),
  reviewResolve: consoleEndpoint({
    method: 'POST',
    path: '/v1/reviews/{review-id}/resolve',
    summary: 'Resolve a review',
    description:
      'Labels the event abuse or legitimate; the label lands on its identities like any feedback. A review resolves once.',
    errors: ['not_found', 'review_already_resolved'],
  }),
  decisionShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/decisions/{type}/{id}',
    summary: 'Explain a decision',
    description:
      'Looks a decided event up by the merchant’s id (providerOrderId, providerReturnId, customerId, serviceLoginId, serviceAccountEventId): score, signals and contributions, the rule and the values it saw, versions, identity counters.',
    errors: ['not_found'],
  }),
  workflowShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/workflows/{type}',
    summary: 'Get the live workflow',
    description: 'The workflow deciding this event type now (the default one until the merchant saves one).',
    errors: ['not_found'],
  }),
  workflowSave: consoleEndpoint({
    method: 'PUT',
    path: '/v1/workflows/{type}',
    summary: 'Save a workflow (new version)',
    description: 'Validates the workflow as the admin CLI does, then makes it live as a new version.',
    errors: ['not_found', 'invalid_workflow'],
  }),
  workflowValidate: consoleEndpoint({
    method: 'POST',
    path: '/v1/workflows/{type}/validate',
    summary: 'Validate a workflow',
    description: 'Every problem of a candidate workflow, in the admin CLI’s words; saves nothing.',
    errors: ['not_found'],
  }),
  workflowBacktest: consoleEndpoint({
    method: 'POST',
    path: '/v1/workflows/{type}/backtest',
    summary: 'Backtest a workflow',
    description: 'Re-decides recent stored decisions with the candidate and reports what would change.',
    errors: ['not_found', 'invalid_workflow'],
  }),
  workflowVersions: consoleEndpoint({
    method: 'GET',
    path: '/v1/workflows/{type}/versions',
    summary: 'List saved workflow versions',
    description: 'Every saved version, newest first, with who saved it.',
    errors: ['not_found'],
  }),
  dispositionsUpload: consoleEndpoint({
    method: 'POST',
    path: '/v1/return/dispositions/upload',
    summary: 'Upload dispositions as CSV',
    description:
      'A `text/csv` file with a header row (returnId, identifierType, identifier, returnedItemCondition, dispositionOutcome, returnMethod, refundMode, warehouseIdentifier, storeIdentifier, images, inspectionNote; images separated by `|`). Every row is checked first; if any fails nothing is recorded and `error.details` lists each failing row (line, column, code). A valid file is answered 202: its rows are recorded by a job whose progress `Location` (GET /v1/return/dispositions/uploads/{upload-id}) shows. Uploading the same file again changes nothing (its returns count as already present).',
    csvBody: { maxBytes: MAX_CSV_UPLOAD_BYTES },
    requestBudgetMs: 27_000,
    successStatus: 202,
    errors: ['invalid_csv_rows'],
  }),
  dispositionsUploadShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/return/dispositions/uploads/{upload-id}',
    summary: 'Show a dispositions upload',
    description:
      'The job recording an accepted upload: `recording`, `done` or `failed`, the file’s totals, how many returns are recorded or were already present so far, any return refused while recording, and when it finished.',
    errors: ['not_found'],
  }),
  overview: consoleEndpoint({
    method: 'GET',
    path: '/v1/overview',
    summary: 'Decisions overview',
    description:
      'Decisions per day by event type and outcome, the score distribution, top reasons and open reviews for a period (UTC days).',
    errors: [],
  }),
  auditList: consoleEndpoint({
    method: 'GET',
    path: '/v1/audit',
    summary: 'Audit log',
    description:
      'Every change made through the console (review resolved, workflow saved, upload), newest first.',
    errors: [],
  }),
  webhookList: consoleEndpoint({
    method: 'GET',
    path: '/v1/webhooks',
    summary: 'List webhook endpoints',
    description:
      'The merchant’s webhook endpoints: URL, events, filters, status (and why disabled). Never their secrets.',
    errors: [],
  }),
  webhookCreate: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks',
    summary: 'Create a webhook endpoint',
    description:
      'Subscribes a URL to decision.created (filterable by event type and outcome), review.created and review.resolved. The signing secret is in this answer only. Production accepts only https URLs that are not loopback, private, link-local or metadata addresses.',
    errors: ['not_found'],
  }),
  webhookShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/webhooks/{webhook-id}',
    summary: 'Show a webhook endpoint',
    description: 'One endpoint: URL, events, filters, status (and why disabled).',
    errors: ['not_found'],
  }),
  webhookUpdate: consoleEndpoint({
    method: 'PATCH',
    path: '/v1/webhooks/{webhook-id}',
    summary: 'Update a webhook endpoint',
    description: 'Changes the URL, events or filters; `enabled: false` disables it, `true` enables it again.',
    errors: ['not_found'],
  }),
  webhookDelete: consoleEndpoint({
    method: 'DELETE',
    path: '/v1/webhooks/{webhook-id}',
    summary: 'Delete a webhook endpoint',
    description: 'It receives nothing more; its past deliveries stay listed until they expire (30 days).',
    errors: ['not_found'],
  }),
  webhookRotateSecret: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks/{webhook-id}/rotate-secret',
    summary: 'Rotate the signing secret',
    description:
      'A new secret, in this answer only; the previous one keeps signing (a second `v1=`) for 24 h.',
    errors: ['not_found'],
  }),
  webhookTest: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks/{webhook-id}/test',
    summary: 'Send a test event',
    description:
      'Queues a `webhook.test` event to this endpoint; its delivery shows in the endpoint’s deliveries.',
    errors: ['not_found'],
  }),
  webhookDeliveries: consoleEndpoint({
    method: 'GET',
    path: '/v1/webhooks/{webhook-id}/deliveries',
    summary: 'List recent deliveries',
    description:
      'Newest first: status, attempts, the last answer (HTTP status, error, latency) and the next attempt.',
    errors: ['not_found'],
  }),
  webhookRedeliver: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks/{webhook-id}/deliveries/{delivery-id}/redeliver',
    summary: 'Redeliver an event',
    description: 'Queues the delivery again with the same event id (Webhook-Id) and a fresh 72 h of retries.',
    errors: ['not_found'],
  }),
};

/** Every endpoint of the API: the event endpoints and the management API. */
export const API_DEFINITIONS: Readonly<Record<ApiEndpointName, EndpointDefinition>> = {
  ...ENDPOINT_DEFINITIONS,
  ...MANAGEMENT_ENDPOINT_DEFINITIONS,
};
export type ManagementEndpointName = keyof typeof MANAGEMENT_ENDPOINT_DEFINITIONS;
export type ApiEndpointName = EndpointName | ManagementEndpointName;
export const API_ENDPOINTS = Object.keys(API_DEFINITIONS) as ApiEndpointName[];

type Definitions = typeof ENDPOINT_DEFINITIONS;
export type EndpointName = keyof Definitions;
export const ENDPOINTS = Object.keys(ENDPOINT_DEFINITIONS) as EndpointName[];

/** The validated body of an endpoint's request, and the body its use case answers with. */
export type RequestOf<N extends EndpointName> = z.output<(typeof ENDPOINT_SCHEMAS)[N]['request']>;
export type ResponseOf<N extends EndpointName> = z.input<(typeof ENDPOINT_SCHEMAS)[N]['response']>;

/** Both registries name the same endpoints (a type check: tsc fails when one misses an endpoint). */
type SameKeys<A, B> = [Exclude<keyof A, keyof B> | Exclude<keyof B, keyof A>] extends [never] ? true : false;
type Holds<T extends true> = T;
export type SchemasCoverTheRegistry = [
  Holds<SameKeys<typeof ENDPOINT_SCHEMAS, Definitions>>,
  Holds<SameKeys<typeof MANAGEMENT_ENDPOINT_SCHEMAS, typeof MANAGEMENT_ENDPOINT_DEFINITIONS>>,
];

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
