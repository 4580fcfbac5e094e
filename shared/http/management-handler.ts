import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod';
import { type EndpointSchemas, MANAGEMENT_ENDPOINT_SCHEMAS } from '../contract/endpoint-schemas.ts';
import type { EndpointDefinition } from '../contract/endpoints.ts';
import {
  MANAGEMENT_ENDPOINT_DEFINITIONS,
  type ManagementEndpointName,
} from '../contract/management-endpoints.ts';
import { ApiError } from '../errors.ts';
import type { ApiContext } from './api-context.ts';
import { type ApiHandler, baseStack, inRequestScope } from './http-handler.ts';
import { routeLifecycle } from './middleware/route-lifecycle.ts';
import { pathParametersOf } from './path-parameters.ts';
import { withinRateLimit } from './rate-limit.ts';
import { readCsvBody, readJsonBody } from './request-body.ts';
import { jsonResponse } from './responses.ts';
import { ROUTES } from './routes.ts';
import { validate } from './validation.ts';

type Definitions = typeof MANAGEMENT_ENDPOINT_DEFINITIONS;
type Schemas = typeof MANAGEMENT_ENDPOINT_SCHEMAS;

/** The validated JSON body, the CSV text, or nothing, as the definition says. */
type BodyOf<N extends ManagementEndpointName> = Schemas[N] extends { request: z.ZodType }
  ? z.output<Schemas[N]['request']>
  : Definitions[N] extends { csvBody: object }
    ? string
    : undefined;
type QueryOf<N extends ManagementEndpointName> = Schemas[N] extends { query: z.ZodType }
  ? z.output<Schemas[N]['query']>
  : undefined;

/** The console key behind a call: whose merchant, and who (the audit log names the key's holder). */
export interface ConsoleCaller {
  merchantId: string;
  merchantName: string;
  keyId: string;
  keyName: string;
  keyHash: string;
  /** The merchant's opt-in: `review.resolved` webhooks carry the reviewer's note. */
  webhookReviewNotes: boolean;
  /** Set when the call came with the session cookie (sign-out ends that session). */
  sessionToken?: string;
}

interface ManagementCall<N extends ManagementEndpointName> {
  caller: ConsoleCaller;
  body: BodyOf<N>;
  query: QueryOf<N>;
  pathParameters: Readonly<Record<string, string>>;
}

interface ManagementAnswer<N extends ManagementEndpointName> {
  body: z.input<Schemas[N]['response']>;
  /** Set-Cookie on sign-in and sign-out, Location on an accepted upload. */
  headers?: Record<string, string>;
}

export type ManagementUseCase<N extends ManagementEndpointName> = (
  call: ManagementCall<N>,
) => Promise<ManagementAnswer<N>>;

/**
 * A management endpoint behind the same stack as the event endpoints (request id and envelope,
 * authentication with the definition's scope, route lifecycle), then, within the rate limit, its
 * body (JSON or CSV), path ids and query validated against the definition before the use case runs.
 */
export function managementHandler<N extends ManagementEndpointName>(
  endpoint: N,
  useCase: ManagementUseCase<N>,
): ApiHandler {
  const definition: EndpointDefinition = MANAGEMENT_ENDPOINT_DEFINITIONS[endpoint];
  const schemas: EndpointSchemas = MANAGEMENT_ENDPOINT_SCHEMAS[endpoint];
  const csvBody = definition.csvBody;
  const handler = baseStack(endpoint, definition)
    .use(routeLifecycle(ROUTES))
    .handler((event, context) =>
      withinRateLimit(context, async () => {
        const parsed = schemas.request ? readJsonBody(event) : undefined;
        const csv = csvBody ? readCsvBody(event, csvBody.maxBytes) : undefined;
        const pathParameters = pathParametersOf(event);
        const body = schemas.request ? validate(schemas.request, parsed) : csv;
        const query = schemas.query ? validate(schemas.query, event.queryStringParameters ?? {}) : undefined;
        const answer = await useCase({
          caller: callerOf(context),
          body: body as BodyOf<N>,
          query: query as QueryOf<N>,
          pathParameters,
        });
        return jsonResponse(
          {
            statusCode: definition.successStatus ?? 200,
            body: answer.body,
            headers: { 'Cache-Control': 'no-store', ...answer.headers },
          },
          context.requestId,
        );
      }),
    );
  return inRequestScope(
    (event, context) => handler(event, context as ApiContext),
    definition.requestBudgetMs,
  );
}

function callerOf(context: ApiContext): ConsoleCaller {
  const { merchant, key } = context.principal!;
  return {
    merchantId: merchant.merchantId,
    merchantName: merchant.name,
    keyId: key.keyId,
    keyName: key.name ?? key.keyId,
    keyHash: key.keyHash,
    webhookReviewNotes: merchant.webhookReviewNotes,
    ...(context.sessionToken ? { sessionToken: context.sessionToken } : {}),
  };
}

/**
 * One Lambda function serving several management endpoints: each request goes to the handler of its
 * route (API Gateway's `resource` and method), so every endpoint keeps its own definition and stack.
 */
export function routedFunction(handlers: { [N in ManagementEndpointName]?: ApiHandler }): ApiHandler {
  return (event: APIGatewayProxyEvent, context) => {
    const route = ROUTES.find((r) => r.path === event.resource && r.method === event.httpMethod);
    const handler = route && handlers[route.endpoint as ManagementEndpointName];
    if (!handler) {
      throw new ApiError('not_found', `No handler for ${event.httpMethod} ${event.resource} here.`);
    }
    return handler(event, context);
  };
}
