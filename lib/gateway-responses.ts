import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { ErrorCode } from '../shared/errors.ts';

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
  /** The status sent; undefined keeps API Gateway's own (the DEFAULT_* types cover many statuses). */
  status?: number;
  code: ErrorCode;
  /** Fixed text, or undefined to pass API Gateway's own message through. */
  message?: string;
  /** Extra static headers (values are literal, quoted for API Gateway). */
  headers?: Record<string, string>;
}

export const GATEWAY_ERRORS: readonly GatewayError[] = [
  {
    type: ResponseType.THROTTLED,
    status: 429,
    code: 'rate_limited',
    message: 'Too many requests; retry after the number of seconds in Retry-After.',
    headers: { 'Retry-After': '1' },
  },
  {
    type: ResponseType.QUOTA_EXCEEDED,
    status: 429,
    code: 'rate_limited',
    message: 'Too many requests; retry after the number of seconds in Retry-After.',
    headers: { 'Retry-After': '1' },
  },
  { type: ResponseType.RESOURCE_NOT_FOUND, status: 404, code: 'not_found', message: 'No such route.' },
  {
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    status: 404,
    code: 'not_found',
    message: 'No such route.',
  },
  {
    type: ResponseType.REQUEST_TOO_LARGE,
    status: 413,
    code: 'payload_too_large',
    message: 'The request body is too large.',
  },
  {
    type: ResponseType.INTEGRATION_FAILURE,
    status: 502,
    code: 'bad_gateway',
    message: 'The request could not be processed; retry with backoff.',
  },
  {
    type: ResponseType.INTEGRATION_TIMEOUT,
    status: 503,
    code: 'service_unavailable',
    message: 'The request timed out; retry with backoff.',
  },
  { type: ResponseType.ACCESS_DENIED, status: 403, code: 'forbidden', message: 'Forbidden.' },
  { type: ResponseType.WAF_FILTERED, status: 403, code: 'forbidden', message: 'Forbidden.' },
  { type: ResponseType.DEFAULT_4XX, code: 'invalid_request' },
  { type: ResponseType.DEFAULT_5XX, code: 'internal_error' },
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
      ...(error.status !== undefined ? { statusCode: String(error.status) } : {}),
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
