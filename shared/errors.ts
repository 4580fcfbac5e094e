/**
 * The one error hierarchy of the API. Every failure a request can meet is an ApiError (or is turned
 * into one by shared/http/error-mapper.ts), so the envelope and the status live in one place.
 */
/**
 * The error catalog (contract 7 plus decisions.md): every `error.code` the API can answer, its HTTP
 * status and when it is given. The envelope, the OpenAPI document and the fuzz suite read this one
 * table.
 */
export const ERROR_CATALOG = {
  unauthenticated: { status: 401, condition: 'Authorization header missing' },
  invalid_api_key: { status: 401, condition: 'Key format invalid, unknown or revoked' },
  environment_mismatch: {
    status: 401,
    condition: 'Key prefix and base address belong to different environments',
  },
  forbidden: { status: 403, condition: 'Key not authorized for the endpoint, or merchant suspended' },
  endpoint_not_enabled: { status: 403, condition: 'Account-update endpoint not enabled on the account' },
  invalid_request: { status: 400, condition: 'Malformed JSON, required field missing or wrong JSON type' },
  unprocessable_entity: { status: 422, condition: 'Field present but value invalid' },
  unknown_field: { status: 422, condition: 'Field not in the schema' },
  invalid_currency_code: { status: 422, condition: 'Currency is not an ISO 4217 numeric code' },
  invalid_timestamp: { status: 422, condition: 'Timestamp is not epoch milliseconds' },
  unknown_enum_value: {
    status: 422,
    condition: 'Enumerated field outside allowed values (disposition, dispute)',
  },
  item_not_on_return: { status: 422, condition: 'Disposition identifier matches no item on the return' },
  not_found: { status: 404, condition: 'Resource does not exist' },
  order_not_found: { status: 404, condition: 'Order id unknown (returns, disputes)' },
  return_not_found: { status: 404, condition: 'Return id unknown (dispositions)' },
  method_not_allowed: { status: 405, condition: 'Known path, other method' },
  duplicate_order: { status: 409, condition: 'providerOrderId exists with a different body' },
  duplicate_return: { status: 409, condition: 'providerReturnId exists with a different body' },
  duplicate_customer: { status: 409, condition: 'Signup customerId exists with a different body' },
  duplicate_dispute_id: { status: 409, condition: 'disputeId collides with a dispute on a different order' },
  review_already_resolved: { status: 409, condition: 'The review was resolved before' },
  invalid_workflow: { status: 422, condition: 'The workflow has problems (listed in error.details)' },
  invalid_csv_rows: {
    status: 422,
    condition: 'Rows of the uploaded CSV are invalid (each in error.details); nothing was recorded',
  },
  idempotency_key_reused: { status: 409, condition: 'Idempotency-Key already used with a different request' },
  gone: { status: 410, condition: 'Deprecated route past its sunset' },
  payload_too_large: { status: 413, condition: 'Request body over the size limit' },
  // Refused by the HTTP server before any handler runs (local mode; API Gateway's own limits in AWS).
  request_timeout: { status: 408, condition: 'Request not received in time (local server)' },
  uri_too_long: { status: 414, condition: 'Request line over the server limit (local server)' },
  request_header_fields_too_large: { status: 431, condition: 'Headers over the server limit (local server)' },
  rate_limited: { status: 429, condition: 'Rate limit exceeded' },
  internal_error: { status: 500, condition: 'Internal failure' },
  bad_gateway: { status: 502, condition: 'Upstream issue' },
  service_unavailable: { status: 503, condition: 'Temporary unavailability' },
} as const satisfies Record<string, { status: number; condition: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
/** One of several problems an answer lists (a CSV row's cell, a workflow's rule). */
export interface ErrorDetail {
  /** The CSV line (1 is the header row). */
  line?: number;
  /** The CSV column or the document path. */
  column?: string;
  code: string;
  message: string;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: readonly ErrorDetail[] | undefined;
  readonly status: number;
  readonly field: string | undefined;
  /** Extra response headers the error carries (Allow, Retry-After, ...). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { field?: string; headers?: Record<string, string>; details?: readonly ErrorDetail[] } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = options.details;
    this.status = ERROR_CATALOG[code].status;
    this.field = options.field;
    this.headers = options.headers ?? {};
  }
}

export const notFound = (message = 'No such resource.') => new ApiError('not_found', message);
export const orderNotFound = () =>
  new ApiError('order_not_found', 'No order with this providerOrderId exists.');
export const returnNotFound = () =>
  new ApiError('return_not_found', 'No return with this providerReturnId exists.');
export const methodNotAllowed = (allowed: readonly string[]) =>
  new ApiError('method_not_allowed', `Method not allowed; use ${allowed.join(', ')}.`, {
    headers: { Allow: allowed.join(', ') },
  });

/** DynamoDB kept refusing (throttling, transaction conflicts) beyond the request's retry budget. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
