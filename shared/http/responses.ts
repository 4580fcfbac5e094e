import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ApiError } from '../errors.ts';

/**
 * What a use case answers: a JSON body (or, for replays, the stored JSON text as first sent),
 * optionally with extra headers. Status defaults to 200.
 */
export type UseCaseResult = { statusCode?: number; headers?: Record<string, string> } & (
  | { body: unknown }
  | { rawBody: string }
);

export function jsonResponse(result: UseCaseResult, requestId: string): APIGatewayProxyResult {
  return {
    statusCode: result.statusCode ?? 200,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...result.headers },
    body: 'rawBody' in result ? result.rawBody : JSON.stringify(result.body),
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
        },
      },
    },
    requestId,
  );
}
