/**
 * The one error hierarchy of the API. Every failure a request can meet is an ApiError (or is turned
 * into one by shared/http/error-mapper.ts), so the envelope and the status live in one place.
 */
export type ErrorCode =
  | 'unauthenticated'
  | 'invalid_api_key'
  | 'environment_mismatch'
  | 'forbidden'
  | 'endpoint_not_enabled'
  | 'invalid_request'
  | 'unprocessable_entity'
  | 'unknown_field'
  | 'invalid_currency_code'
  | 'invalid_timestamp'
  | 'unknown_enum_value'
  | 'item_not_on_return'
  | 'not_found'
  | 'order_not_found'
  | 'return_not_found'
  | 'method_not_allowed'
  | 'duplicate_order'
  | 'duplicate_return'
  | 'duplicate_customer'
  | 'duplicate_dispute_id'
  | 'idempotency_key_reused'
  | 'gone'
  | 'payload_too_large'
  | 'uri_too_long'
  | 'request_header_fields_too_large'
  | 'request_timeout'
  | 'rate_limited'
  | 'internal_error'
  | 'bad_gateway'
  | 'service_unavailable';

const STATUS_BY_CODE: Record<ErrorCode, number> = {
  unauthenticated: 401,
  invalid_api_key: 401,
  environment_mismatch: 401,
  forbidden: 403,
  endpoint_not_enabled: 403,
  invalid_request: 400,
  unprocessable_entity: 422,
  unknown_field: 422,
  invalid_currency_code: 422,
  invalid_timestamp: 422,
  unknown_enum_value: 422,
  item_not_on_return: 422,
  not_found: 404,
  order_not_found: 404,
  return_not_found: 404,
  method_not_allowed: 405,
  duplicate_order: 409,
  duplicate_return: 409,
  duplicate_customer: 409,
  duplicate_dispute_id: 409,
  idempotency_key_reused: 409,
  gone: 410,
  payload_too_large: 413,
  // Refused by the HTTP server before any handler runs (local mode; API Gateway's own limits in AWS).
  uri_too_long: 414,
  request_header_fields_too_large: 431,
  request_timeout: 408,
  rate_limited: 429,
  internal_error: 500,
  bad_gateway: 502,
  service_unavailable: 503,
};

/** The error catalog: every code the API answers with, and its status. */
export const ERROR_CODES = Object.keys(STATUS_BY_CODE) as ErrorCode[];

export function statusOf(code: ErrorCode): number {
  return STATUS_BY_CODE[code];
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  /** Extra response headers the error carries (Allow, Retry-After, ...). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { field?: string; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = statusOf(code);
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

/**
 * Raised by a repository when an idempotency key already holds a different request. The use case
 * chooses the wire code (duplicate_order, duplicate_return, ...).
 */
export class ConflictError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConflictError';
  }
}

/** DynamoDB kept refusing (throttling, transaction conflicts) beyond the request's retry budget. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
