import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import document from '../openapi.json' with { type: 'json' };
import { ApiError } from '../shared/errors.ts';
import { AddressRateLimit } from '../shared/http/address-rate-limit.ts';
import { errorResponse } from '../shared/http/responses.ts';

/** The committed document (npm run openapi), serialised once per instance. */
const body = JSON.stringify(document);

/**
 * What one client address may fetch: the document is cached for 5 minutes (Cache-Control), so a
 * client needs it a few times an hour; 30 a minute leaves room for tooling and keeps a loop cheap.
 */
const limit = new AddressRateLimit({
  policy: 'document',
  burst: 30,
  windowSeconds: 60,
  maxAddresses: 10_000,
});

/**
 * GET /v1/openapi.json: the API's OpenAPI 3.1 document, public like any published API reference, so
 * it needs no key and touches no table; limited per client address (shared/http/address-rate-limit.ts).
 */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const requestId = event.requestContext?.requestId || randomUUID();
  const verdict = limit.take(event.requestContext?.identity?.sourceIp ?? 'unknown', Date.now());
  if (!verdict.admitted) {
    const retryAfter = String(verdict.retryAfterSeconds);
    return errorResponse(
      new ApiError('rate_limited', `Too many requests for the document; retry after ${retryAfter} s.`, {
        headers: { 'Retry-After': retryAfter, ...verdict.headers },
      }),
      requestId,
    );
  }
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/json',
      'X-Request-Id': requestId,
      'Cache-Control': 'public, max-age=300',
      ...verdict.headers,
    },
    body,
  };
}
