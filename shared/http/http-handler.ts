import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { z } from 'zod';
import type { EndpointFeature, Principal } from '../auth/authenticate.ts';
import { readRuntimeConfig } from '../config.ts';
import { logger, tracer } from '../observability.ts';
import type { ApiContext } from './api-context.ts';
import { headerValue } from './headers.ts';
import { authentication } from './middleware/authentication.ts';
import { errorEnvelope } from './middleware/error-envelope.ts';
import { jsonBody } from './middleware/json-body.ts';
import { logContext } from './middleware/log-context.ts';
import { jsonResponse, type UseCaseResult } from './responses.ts';
import type { EndpointName } from './routes.ts';
import { validate } from './validation.ts';

/** What a use case receives: the validated body and the caller, never the raw HTTP event. */
export interface ApiRequest<TBody> {
  body: TBody;
  principal: Principal;
  pathParameters: Record<string, string>;
  requestId: string;
  header: (name: string) => string | undefined;
}

export type UseCase<TBody> = (request: ApiRequest<TBody>) => Promise<UseCaseResult>;

export interface EndpointOptions<TBody> {
  endpoint: EndpointName;
  schema: z.ZodType<TBody>;
  requiredFeature?: EndpointFeature;
}

const { environment } = readRuntimeConfig();

/**
 * The one middleware stack, in this order: request id + error envelope (outermost), Powertools
 * context, authentication, body size and JSON parsing, strict validation, then the use case.
 * Metrics are single metrics flushed where they are recorded, so no flushing middleware is needed.
 */
export function httpHandler<TBody>(options: EndpointOptions<TBody>, useCase: UseCase<TBody>) {
  return baseStack(options.endpoint, options.requiredFeature)
    .use(jsonBody())
    .handler(async (event, context) => {
      const body = validate(options.schema, context.parsedBody);
      const principal = context.principal!;
      const result = await useCase({
        body,
        principal,
        pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
        requestId: context.requestId,
        header: (name) => headerValue(event.headers, name),
      });
      return jsonResponse(result, context.requestId);
    });
}

/** A handler with no body (the 404/405 fallback): authentication still comes first. */
export function bodilessHandler(answer: (event: APIGatewayProxyEvent) => never | Promise<never>) {
  return baseStack(undefined).handler(async (event) => answer(event));
}

/**
 * logEvent is pinned off: an event carries the API key and body values (credential hashes, contacts),
 * and POWERTOOLS_LOGGER_LOG_EVENT must not be able to switch that on.
 */
function baseStack(endpoint: EndpointName | undefined, requiredFeature?: EndpointFeature) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext>()
    .use(errorEnvelope())
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(captureLambdaHandler(tracer, { captureResponse: false }))
    .use(logContext())
    .use(authentication({ environment, endpoint, ...(requiredFeature ? { requiredFeature } : {}) }));
}
