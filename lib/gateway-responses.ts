import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { ERROR_CATALOG, type ErrorCode } from '../shared/errors.ts';
import { FAILED_AUTHENTICATION_LIMIT, WEB_ACL_BLOCKED_MESSAGE } from '../shared/http/web-acl-rules.ts';

/**
 * Errors API Gateway answers itself, before or instead of our functions, mapped to the contract's
 * envelope `{"error":{"code","message","requestId"}}` with `X-Request-Id` = `$context.requestId`
 * (the same id the functions put in their responses, so the two can never disagree).
 *
 * Wrong methods on known paths never reach these: every route resource has an `ANY` method on
 * the fallback function, which authenticates and answers 405 with `Allow: POST`. API Gateway has no
 * "method not allowed" response type; what it would send for an unmatched method or path is
 * MISSING_AUTHENTICATION_TOKEN, mapped here to 404 `not_found`.
 */
export interface GatewayError {
  type: ResponseType;
  /** Sent with the code's status from the catalog, unless API Gateway's own status is kept (DEFAULT_*). */
  code: ErrorCode;
  /** The DEFAULT_* types cover many statuses: keep API Gateway's. */
  keepGatewayStatus?: true;
  /** Fixed text, or undefined to pass API Gateway's own message through. */
  message?: string;
  /** Extra static headers (values are literal, quoted for API Gateway). */
  headers?: Record<string, string>;
}

export const GATEWAY_ERRORS: readonly GatewayError[] = [
  {
    type: ResponseType.THROTTLED,
    code: 'rate_limited',
    message: 'Too many requests; retry after the number of seconds in Retry-After.',
    headers: { 'Retry-After': '1' },
  },
  {
    type: ResponseType.QUOTA_EXCEEDED,
    code: 'rate_limited',
    message: 'Too many requests; retry after the number of seconds in Retry-After.',
    headers: { 'Retry-After': '1' },
  },
  { type: ResponseType.RESOURCE_NOT_FOUND, code: 'not_found', message: 'No such route.' },
  {
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    code: 'not_found',
    message: 'No such route.',
  },
  {
    type: ResponseType.REQUEST_TOO_LARGE,
    code: 'payload_too_large',
    message: 'The request body is too large.',
  },
  {
    type: ResponseType.INTEGRATION_FAILURE,
    code: 'bad_gateway',
    message: 'The request could not be processed; retry with backoff.',
  },
  {
    type: ResponseType.INTEGRATION_TIMEOUT,
    code: 'service_unavailable',
    message: 'The request timed out; retry with backoff.',
  },
  { type: ResponseType.ACCESS_DENIED, code: 'forbidden', message: 'Forbidden.' },
  // The web ACL's rules are all rate-based (lib/api-firewall.ts): a block is a rate limit.
  {
    type: ResponseType.WAF_FILTERED,
    code: 'rate_limited',
    message: WEB_ACL_BLOCKED_MESSAGE,
    headers: { 'Retry-After': String(FAILED_AUTHENTICATION_LIMIT.windowSeconds) },
  },
  { type: ResponseType.DEFAULT_4XX, code: 'invalid_request', keepGatewayStatus: true },
  { type: ResponseType.DEFAULT_5XX, code: 'internal_error', keepGatewayStatus: true },
];

/** The envelope as an API Gateway template; `$context` variables are filled in per request. */
export function envelopeTemplate(code: ErrorCode, message: string | undefined): string {
  const messageJson = message === undefined ? '$context.error.messageString' : JSON.stringify(message);
  return `{"error":{"code":${JSON.stringify(code)},"message":${messageJson},"requestId":"$context.requestId"}}`;
}

export function addGatewayErrors(api: RestApi): void {
  for (const error of GATEWAY_ERRORS) {
    api.addGatewayResponse(error.type.responseType, {
      type: error.type,
      ...(error.keepGatewayStatus ? {} : { statusCode: String(ERROR_CATALOG[error.code].status) }),
      responseHeaders: {
        'X-Request-Id': 'context.requestId',
        ...Object.fromEntries(
          Object.entries(error.headers ?? {}).map(([name, value]) => [name, `'${value}'`]),
        ),
      },
      templates: { 'application/json': envelopeTemplate(error.code, error.message) },
    });
  }
}
