import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../../observability.ts';
import type { ApiContext } from '../api-context.ts';

/** Every log line of a request carries its request id, and the merchant id once it is known. */
export function logContext(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> {
  const clear = () => {
    logger.resetKeys();
  };
  return {
    before: (request) => {
      logger.appendKeys({
        requestId: request.context.requestId,
        path: request.event.resource ?? request.event.path,
      });
    },
    after: clear,
    onError: clear,
  };
}
