import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { authenticate, type EndpointFeature } from '../../auth/authenticate.ts';
import type { Environment } from '../../config.ts';
import { logger } from '../../observability.ts';
import type { ApiContext } from '../api-context.ts';
import { headerValue } from '../headers.ts';
import type { EndpointName } from '../routes.ts';

export function authentication(options: {
  environment: Environment;
  endpoint: EndpointName | undefined;
  requiredFeature?: EndpointFeature;
}): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> {
  return {
    before: async (request) => {
      const principal = await authenticate(headerValue(request.event.headers, 'authorization'), options);
      request.context.principal = principal;
      logger.appendKeys({ merchantId: principal.merchant.merchantId });
    },
  };
}
