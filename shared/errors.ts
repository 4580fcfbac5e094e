/**
 * The one error hierarchy of the API. Every failure a request can meet is an ApiError (or is turned
 * into one by shared/http/error-mapper.ts), so the envelope and the status live in one place.
 */
/**
 * The error catalog (docs/api.md, Errors): every `error.code` the API can answer and its HTTP
 * status. The envelope, the OpenAPI document and the fuzz suite read this one table; when each code
 * is given is documentation, in shared/contract/error-conditions.ts.
 */
export const ERROR_CATALOG = {
  unauthenticated: { status: 401 },
  invalid_api_key: { status: 401 },
  environment_mismatch: { status: 401 },
  forbidden: { status: 403 },
  endpoint_not_enabled: { status: 403 },
  invalid_request: { status: 400 },
  unprocessable_entity: { status: 422 },
  unknown_field: { status: 422 },
  invalid_currency_code: { status: 422 },
  invalid_timestamp: { status: 422 },
  unknown_enum_value: { status: 422 },
  item_not_on_return: { status: 422 },
  not_found: { status: 404 },
  order_not_found: { status: 404 },
  return_not_found: { status: 404 },
  method_not_allowed: { status: 405 },
  duplicate_order: { status: 409 },
  duplicate_return: { status: 409 },
  duplicate_customer: { status: 409 },
  duplicate_dispute_id: { status: 409 },
  review_already_resolved: { status: 409 },
  duplicate_list_entry: { status: 409 },
  invalid_workflow: { status: 422 },
  invalid_csv_rows: { status: 422 },
  idempotency_key_reused: { status: 409 },
  gone: { status: 410 },
  payload_too_large: { status: 413 },
  // Refused by the HTTP server before any handler runs (local mode; API Gateway's own limits in AWS).
  request_timeout: { status: 408 },
  uri_too_long: { status: 414 },
  request_header_fields_too_large: { status: 431 },
  rate_limited: { status: 429 },
  internal_error: { status: 500 },
  bad_gateway: { status: 502 },
  service_unavailable: { status: 503 },
} as const satisfies Record<string, { status: number }>;

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

/**
 * Bounds of the error envelope (the OpenAPI document declares them): a field path or message can
 * quote what the caller sent (an unknown key, a CSV header cell), so each is cut to its bound here,
 * where every error is made, and a list of problems keeps its first `details`.
 */
export const ERROR_ENVELOPE_LIMITS = {
  fieldLength: 1024,
  messageLength: 2048,
  details: 1000,
} as const;

const cut = (text: string, length: number) =>
  text.length <= length ? text : `${text.slice(0, length - 1)}…`;

function boundedDetail(detail: ErrorDetail): ErrorDetail {
  return {
    ...detail,
    ...(detail.column !== undefined ? { column: cut(detail.column, ERROR_ENVELOPE_LIMITS.fieldLength) } : {}),
    message: cut(detail.message, ERROR_ENVELOPE_LIMITS.messageLength),
  };
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
    super(cut(message, ERROR_ENVELOPE_LIMITS.messageLength));
    this.name = 'ApiError';
    this.code = code;
    this.details = options.details?.slice(0, ERROR_ENVELOPE_LIMITS.details).map(boundedDetail);
    this.status = ERROR_CATALOG[code].status;
    this.field =
      options.field === undefined ? undefined : cut(options.field, ERROR_ENVELOPE_LIMITS.fieldLength);
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

/** DynamoDB refused a write for its size (an item past 400 KB, a transaction past 4 MB). */
export class RecordTooLargeError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('DynamoDB refused a write for its size', options);
    this.name = 'RecordTooLargeError';
  }
}

/** DynamoDB kept refusing (throttling, transaction conflicts) beyond the request's retry budget. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}
