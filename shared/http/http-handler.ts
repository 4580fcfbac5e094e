import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { z } from 'zod';
import type { EndpointFeature, Principal } from '../auth/authenticate.ts';
import { readRuntimeConfig } from '../config.ts';
import { logger, tracer } from '../observability.ts';
import { runInRequestScope } from '../request-scope.ts';
import type { ApiContext } from './api-context.ts';
import { headerValue, IDEMPOTENCY_KEY_HEADER, idempotencyKeyOf } from './headers.ts';
import { authentication } from './middleware/authentication.ts';
import { errorEnvelope } from './middleware/error-envelope.ts';
import { jsonBody } from './middleware/json-body.ts';
import { logContext } from './middleware/log-context.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { routeLifecycle } from './middleware/route-lifecycle.ts';
import { pathParametersOf } from './path-parameters.ts';
import { jsonResponse, type UseCaseResult } from './responses.ts';
import { type EndpointName, ROUTES, type RouteDefinition } from './routes.ts';
import { validate } from './validation.ts';

/** What a use case receives: the validated body and the caller, never the raw HTTP event. */
export interface ApiRequest<TBody> {
  endpoint: EndpointName;
  body: TBody;
  principal: Principal;
  pathParameters: Record<string, string>;
  requestId: string;
  header: (name: string) => string | undefined;
  /** The validated Idempotency-Key header, on endpoints that honour one (EndpointOptions). */
  idempotencyKey?: string;
}

export type UseCase<TBody> = (request: ApiRequest<TBody>) => Promise<UseCaseResult>;

export interface EndpointOptions<TBody> {
  endpoint: EndpointName;
  schema: z.ZodType<TBody>;
  requiredFeature?: EndpointFeature;
  /** Honour an optional Idempotency-Key header (decisions.md: login, account, disposition, dispute). */
  idempotencyKeyHeader?: boolean;
  /** The routes this handler may serve, for their deprecation; ROUTES unless a test brings its own. */
  routes?: readonly RouteDefinition[];
}

/** What Lambda (and the local adapter) invokes. */
export type ApiHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

const { environment } = readRuntimeConfig();
/** Time a request may spend retrying DynamoDB before it answers 503 with Retry-After. */
const REQUEST_BUDGET_MS = 5_000;
/** Kept back from the Lambda's remaining time so a 503 is still answered, not cut off by the timeout. */
const ANSWER_MARGIN_MS = 1_000;

/**
 * The one middleware stack, in this order: request id + error envelope (outermost), Powertools
 * context, authentication, route deprecation (410 after sunset), rate limit, body size and JSON
 * parsing, the ids in the path, the Idempotency-Key header, strict validation, then the use case.
 * Metrics are single metrics flushed where they are recorded, so no flushing middleware is needed.
 */
export function httpHandler<TBody>(options: EndpointOptions<TBody>, useCase: UseCase<TBody>): ApiHandler {
  const stack = baseStack(options.endpoint, options.requiredFeature)
    .use(routeLifecycle(options.routes ?? ROUTES))
    .use(rateLimit())
    .use(jsonBody())
    .handler(async (event, context) => {
      const pathParameters = pathParametersOf(event);
      const idempotencyKey = options.idempotencyKeyHeader
        ? idempotencyKeyOf(headerValue(event.headers, IDEMPOTENCY_KEY_HEADER))
        : undefined;
      const body = validate(options.schema, context.parsedBody);
      const principal = context.principal!;
      const result = await useCase({
        endpoint: options.endpoint,
        body,
        principal,
        pathParameters,
        requestId: context.requestId,
        header: (name) => headerValue(event.headers, name),
        ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
      });
      return jsonResponse(result, context.requestId);
    });
  return inRequestScope((event, context) => stack(event, context as ApiContext));
}

/**
 * A handler with no body (the 404/405 fallback): authentication still comes first. It does no work
 * worth limiting, so it takes no rate-limit token (and needs no write access to the table).
 */
export function bodilessHandler(answer: (event: APIGatewayProxyEvent) => never | Promise<never>): ApiHandler {
  const stack = baseStack(undefined).handler(async (event) => answer(event));
  return inRequestScope((event, context) => stack(event, context as ApiContext));
}

/** Opens the request's scope (shared/request-scope.ts): its store retry budget and write gate. */
function inRequestScope(handler: ApiHandler): ApiHandler {
  return (event, context) => {
    const remaining = context.getRemainingTimeInMillis?.() ?? REQUEST_BUDGET_MS + ANSWER_MARGIN_MS;
    const budget = Math.max(0, Math.min(REQUEST_BUDGET_MS, remaining - ANSWER_MARGIN_MS));
    return runInRequestScope({ deadline: Date.now() + budget }, () => handler(event, context));
  };
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
