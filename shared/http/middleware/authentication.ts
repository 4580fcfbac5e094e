import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { authenticate } from '../../auth/authenticate.ts';
import type { Environment } from '../../config.ts';
import type { EndpointFeature, EndpointName } from '../../contract/endpoints.ts';
import { logger } from '../../observability.ts';
import type { ApiContext } from '../api-context.ts';
import { headerValue } from '../headers.ts';

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
