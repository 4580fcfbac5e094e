import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { authenticate, type CalledEndpoint, keyExpiryWarning } from '../../auth/authenticate.ts';
import { authenticateSession, sessionTokenOf } from '../../auth/console-session.ts';
import { CONSOLE_REQUEST_HEADER } from '../../contract/console-credentials.ts';
import { logger } from '../../observability.ts';
import type { ApiContext } from '../api-context.ts';
import { headerValue } from '../headers.ts';

/**
 * Who calls, first of all: the key's scope must be the endpoint's (shared/auth/authenticate.ts).
 * Management endpoints also take the console's session cookie when no Authorization header is sent.
 */
export function authentication(
  options: CalledEndpoint,
): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> {
  return {
    before: async (request) => {
      const { headers, httpMethod } = request.event;
      const authorization = headerValue(headers, 'authorization');
      const sessionToken =
        options.scope === 'console' && !authorization
          ? sessionTokenOf(headerValue(headers, 'cookie'))
          : undefined;
      const principal = sessionToken
        ? await authenticateSession(sessionToken, {
            ...options,
            method: httpMethod,
            consoleRequestHeader: headerValue(headers, CONSOLE_REQUEST_HEADER),
          })
        : await authenticate(authorization, options);
      request.context.principal = principal;
      Object.assign(request.context.responseHeaders, keyExpiryWarning(principal.key, Date.now()));
      if (sessionToken) request.context.sessionToken = sessionToken;
      logger.appendKeys({ merchantId: principal.merchant.merchantId });
    },
  };
}
