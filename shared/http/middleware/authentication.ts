import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { authenticate, type CalledEndpoint } from '../../auth/authenticate.ts';
import { logger } from '../../observability.ts';
import type { ApiContext } from '../api-context.ts';
import { headerValue } from '../headers.ts';

/** Who calls, first of all: the key's scope must be the endpoint's (shared/auth/authenticate.ts). */
export function authentication(
  options: CalledEndpoint,
): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> {
  return {
    before: async (request) => {
      const principal = await authenticate(headerValue(request.event.headers, 'authorization'), options);
      request.context.principal = principal;
      logger.appendKeys({ merchantId: principal.merchant.merchantId });
    },
  };
}
