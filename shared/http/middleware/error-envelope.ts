import { randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ApiContext } from '../api-context.ts';
import { toApiError } from '../error-mapper.ts';
import { errorResponse } from '../responses.ts';

/**
 * Outermost middleware: fixes the request id (API Gateway's own, so gateway-made errors and ours
 * agree), turns any error into the envelope with `X-Request-Id`, and adds the headers the inner
 * middlewares collected for every response (a response's own headers win).
 */
export function errorEnvelope(): MiddlewareObj<
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Error,
  ApiContext
> {
  return {
    before: (request) => {
      request.context.requestId = request.event.requestContext?.requestId || randomUUID();
      request.context.responseHeaders = {};
    },
    after: (request) => {
      if (request.response) request.response = withCollectedHeaders(request.response, request.context);
    },
    onError: (request) => {
      const requestId = request.context.requestId || randomUUID();
      request.response = withCollectedHeaders(
        errorResponse(toApiError(request.error), requestId),
        request.context,
      );
    },
  };
}

function withCollectedHeaders(response: APIGatewayProxyResult, context: ApiContext): APIGatewayProxyResult {
  return { ...response, headers: { ...context.responseHeaders, ...response.headers } };
}
