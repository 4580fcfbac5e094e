import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../../observability.ts';
import type { ApiContext } from '../api-context.ts';
import { isUnexpected } from '../error-mapper.ts';

/**
 * Every log line of a request carries its request id, and the merchant id once it is known.
 * Unexpected errors are logged here, while those keys are still set (Powertools' own middleware
 * clears them afterwards). Only the error's name and stack frames are logged: its message could
 * echo request data.
 */
export function logContext(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> {
  return {
    before: (request) => {
      logger.appendKeys({
        requestId: request.context.requestId,
        path: request.event.resource ?? request.event.path,
      });
    },
    onError: (request) => {
      const { error } = request;
      if (!isUnexpected(error)) return;
      logger.error('unexpected error', {
        errorName: error instanceof Error ? error.name : typeof error,
        stack: error instanceof Error ? error.stack?.split('\n').slice(1).join('\n') : undefined,
      });
    },
  };
}
