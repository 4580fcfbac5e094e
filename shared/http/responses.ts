import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ApiError } from '../errors.ts';

/** A JSON response before it is serialised; status defaults to 200. */
export interface JsonResult {
  statusCode?: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** Marks an answer given earlier to the same call (docs/decisions.md, Idempotency). */
export const REPLAYED_HEADER = { 'Idempotent-Replayed': 'true' } as const;

export function jsonResponse(result: JsonResult, requestId: string): APIGatewayProxyResult {
  return {
    statusCode: result.statusCode ?? 200,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...result.headers },
    body: JSON.stringify(result.body),
  };
}

export function errorResponse(error: ApiError, requestId: string): APIGatewayProxyResult {
  return jsonResponse(
    {
      statusCode: error.status,
      headers: { ...error.headers },
      body: {
        error: {
          code: error.code,
          message: error.message,
          ...(error.field !== undefined ? { field: error.field } : {}),
          requestId,
          ...(error.details ? { details: error.details } : {}),
        },
      },
    },
    requestId,
  );
}
