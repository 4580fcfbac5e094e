import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { z } from 'zod';
import { readRuntimeConfig } from '../config.ts';
import {
  ENDPOINT_DEFINITIONS,
  type EndpointDefinition,
  type EndpointName,
  IDEMPOTENCY_KEY_HEADER,
  type RequestOf,
} from '../contract/endpoints.ts';
import { logger } from '../observability.ts';
import { runInRequestScope } from '../request-scope.ts';
import { invocationTracing } from '../tracing.ts';
import type { EndpointUseCase } from '../use-cases/use-case.ts';
import type { ApiContext } from './api-context.ts';
import { headerValue, idempotencyKeyOf } from './headers.ts';
import { authentication } from './middleware/authentication.ts';
import { errorEnvelope } from './middleware/error-envelope.ts';
import { logContext } from './middleware/log-context.ts';
import { routeLifecycle } from './middleware/route-lifecycle.ts';
import { pathParametersOf } from './path-parameters.ts';
import { withinRateLimit } from './rate-limit.ts';
import { readJsonBody } from './request-body.ts';
import { jsonResponse, REPLAYED_HEADER } from './responses.ts';
import { type RouteDefinition, routeOf } from './route.ts';
import { validate } from './validation.ts';

export interface EndpointOptions {
  /** The routes this handler may serve, for their deprecation; its endpoint's unless a test brings its own. */
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
 * The Lambda handler of a registered endpoint: the one middleware stack (request id + error envelope
 * outermost, Powertools context, authentication, route deprecation: 410 after sunset), then the
 * handler's own steps within the merchant's rate limit (rate-limit.ts): the body's size and JSON,
 * the ids in the path, the Idempotency-Key header, strict validation against the endpoint's request
 * schema, and the use case, whose answer becomes the 200 response (`Idempotent-Replayed: true` on a
 * replay). Metrics are flushed where they are recorded, so no flushing middleware is needed.
 */
export function endpointHandler<N extends EndpointName>(
  endpoint: N,
  /** Its request schema (ENDPOINT_SCHEMAS[endpoint].request), imported by the function alone. */
  request: z.ZodType<RequestOf<N>>,
  useCase: EndpointUseCase<N>,
  options: EndpointOptions = {},
): ApiHandler {
  const definition: EndpointDefinition = ENDPOINT_DEFINITIONS[endpoint];
  const stack = baseStack(endpoint, definition)
    .use(routeLifecycle(options.routes ?? [routeOf(endpoint, definition)]))
    .handler((event, context) =>
      withinRateLimit(context, async () => {
        const parsed = readJsonBody(event);
        const pathParameters = pathParametersOf(event);
        const idempotencyKey =
          definition.idempotency?.kind === 'idempotency-key-header'
            ? idempotencyKeyOf(headerValue(event.headers, IDEMPOTENCY_KEY_HEADER))
            : undefined;
        const body = validate(request, parsed);
        const answer = await useCase({
          endpoint,
          merchantId: context.principal!.merchant.merchantId,
          body,
          ...(context.principal!.merchant.network?.enabled ? { network: true } : {}),
          pathParameters,
          ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
        });
        return jsonResponse(
          { body: answer.response, ...(answer.replayed ? { headers: REPLAYED_HEADER } : {}) },
          context.requestId,
        );
      }),
    );
  return inRequestScope((event, context) => stack(event, context as ApiContext));
}

/**
 * A handler with no body (the 404/405 fallback): authentication still comes first. It does no work
 * worth limiting, so it takes no rate-limit token (and needs no write access to the table).
 */
export function bodilessHandler(answer: (event: APIGatewayProxyEvent) => never | Promise<never>): ApiHandler {
  const stack = baseStack(undefined, undefined).handler(async (event) => answer(event));
  return inRequestScope((event, context) => stack(event, context as ApiContext));
}

/** Opens the request's scope (shared/request-scope.ts): its store retry budget and write gate. */
export function inRequestScope(handler: ApiHandler, budgetMs = REQUEST_BUDGET_MS): ApiHandler {
  return (event, context) => {
    const remaining = context.getRemainingTimeInMillis?.() ?? budgetMs + ANSWER_MARGIN_MS;
    const budget = Math.max(0, Math.min(budgetMs, remaining - ANSWER_MARGIN_MS));
    return runInRequestScope({ deadline: Date.now() + budget }, () => handler(event, context));
  };
}

/**
 * logEvent is pinned off: an event carries the API key and body values (credential hashes, contacts),
 * and POWERTOOLS_LOGGER_LOG_EVENT must not be able to switch that on.
 */
export function baseStack(endpoint: string | undefined, definition: EndpointDefinition | undefined) {
  const requiredFeature = definition?.requiredFeature;
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext>()
    .use(errorEnvelope())
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(invocationTracing())
    .use(logContext())
    .use(
      authentication({
        environment,
        endpoint,
        scope: definition?.scope,
        ...(requiredFeature ? { requiredFeature } : {}),
      }),
    );
}
