import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { RouteDeprecation } from '../../contract/endpoints.ts';
import { ApiError } from '../../errors.ts';
import type { ApiContext } from '../api-context.ts';
import type { RouteDefinition } from '../route.ts';

/**
 * Deprecation of a route, driven by its `deprecation` in the route table (docs/decisions.md,
 * Versioning). Until the sunset every response carries
 *   Deprecation: <HTTP-date of the sunset>              (our versioning rule says exactly this; it wins
 *                                                       over RFC 9745's `@<epoch>` of the deprecation)
 *   Sunset: <HTTP-date>                                 (RFC 8594: when it stops answering)
 *   Link: <successor>; rel="successor-version", <guide>; rel="deprecation"   (RFC 5829, RFC 9745)
 * and from the sunset on the route answers 410 `gone` naming the successor and the migration guide.
 * Runs after authentication, like the 404/405 answers.
 */
export function routeLifecycle(
  routes: readonly RouteDefinition[],
): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> {
  for (const route of routes) if (route.deprecation) assertValid(route, route.deprecation);
  return {
    before: (request) => {
      const { resource, httpMethod } = request.event;
      const route = routes.find((r) => r.path === resource && r.method === httpMethod);
      const deprecation = route?.deprecation;
      if (!route || !deprecation) return;
      Object.assign(request.context.responseHeaders, deprecationHeaders(deprecation));
      const sunset = new Date(deprecation.sunsetAt);
      if (Date.now() >= sunset.getTime()) {
        throw new ApiError(
          'gone',
          `${route.method} ${route.path} was retired on ${sunset.toUTCString()}; use ${deprecation.successorPath}. ` +
            `Migration guide: ${deprecation.migrationGuideUrl}`,
        );
      }
    },
  };
}

function deprecationHeaders(deprecation: RouteDeprecation): Record<string, string> {
  return {
    Deprecation: new Date(deprecation.sunsetAt).toUTCString(),
    Sunset: new Date(deprecation.sunsetAt).toUTCString(),
    Link: `<${deprecation.successorPath}>; rel="successor-version", <${deprecation.migrationGuideUrl}>; rel="deprecation"`,
  };
}

/** A mistyped date must fail the deployment's first request loudly, not retire a route by accident. */
function assertValid(route: RouteDefinition, deprecation: RouteDeprecation): void {
  const deprecatedAt = Date.parse(deprecation.deprecatedAt);
  const sunsetAt = Date.parse(deprecation.sunsetAt);
  if (Number.isNaN(deprecatedAt) || Number.isNaN(sunsetAt) || sunsetAt <= deprecatedAt) {
    throw new Error(`route ${route.path}: deprecation needs ISO dates with deprecatedAt before sunsetAt`);
  }
}
