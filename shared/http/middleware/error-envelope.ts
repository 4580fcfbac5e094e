import { randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ApiContext } from '../api-context.ts';
import { toApiError } from '../error-mapper.ts';
import { errorResponse } from '../responses.ts';

/**
 * Outermost middleware: fixes the request id (API Gateway's own, so gateway-made errors and ours
 * agree) and turns any error into the envelope with `X-Request-Id`.
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
    },
    onError: (request) => {
      const requestId = request.context.requestId || randomUUID();
      request.response = errorResponse(toApiError(request.error), requestId);
    },
  };
}
