import {
  ENDPOINT_DEFINITIONS,
  ENDPOINTS,
  type EndpointDefinition,
  type EndpointName,
  type RouteDeprecation,
} from '../contract/endpoints.ts';

export { ENDPOINTS, type EndpointName, type RouteDeprecation };

/**
 * The API's routes, derived from the endpoint registry (shared/contract/endpoints.ts) and read by the
 * local HTTP adapter and by the CDK stack, so both expose the same surface. `path` uses API
 * Gateway's resource syntax; `handlerFile` is the handler module under functions/ (exporting `handler`).
 */
export interface RouteDefinition {
  endpoint: EndpointName;
  method: 'POST';
  path: string;
  handlerFile: string;
  deprecation?: RouteDeprecation;
}

export const ROUTES: readonly RouteDefinition[] = ENDPOINTS.map((endpoint) => {
  const { method, path, deprecation }: EndpointDefinition = ENDPOINT_DEFINITIONS[endpoint];
  return {
    endpoint,
    method,
    path,
    handlerFile: handlerFileOf(endpoint),
    ...(deprecation ? { deprecation } : {}),
  };
});

/** Each endpoint's Lambda entry: the two lines binding its use case to its definition. */
function handlerFileOf(endpoint: EndpointName): string {
  return `functions/${endpoint}.ts`;
}

/** A route outside the registry that answers without authentication. */
export interface PublicRoute {
  name: 'openapi';
  method: 'GET';
  path: string;
  handlerFile: string;
}

/** The OpenAPI document (openapi.json), served without a key by the local server and the deployed API. */
export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  { name: 'openapi', method: 'GET', path: '/v1/openapi.json', handlerFile: 'functions/openapi.ts' },
];

/** Answers unknown paths (404) and wrong methods on known paths (405), after authentication. */
export const FALLBACK_HANDLER_FILE = 'functions/fallback.ts';

export interface RouteMatch {
  route: RouteDefinition;
  pathParameters: Record<string, string>;
}

/**
 * Finds the route whose path template matches a concrete (percent-encoded) path, whatever the method.
 * Parameters are decoded where they decode and left as sent where they do not: matching never
 * fails on encoding; the handler reads its ids strictly (shared/http/path-parameters.ts).
 */
export function matchRoute(
  path: string,
  routes: readonly RouteDefinition[] = ROUTES,
): RouteMatch | undefined {
  const parts = pathSegments(path);
  for (const route of routes) {
    const template = pathSegments(route.path);
    if (template.length !== parts.length) continue;
    const pathParameters: Record<string, string> = {};
    const matches = template.every((segment, i) => {
      const actual = parts[i] ?? '';
      const param = parameterName(segment);
      if (param) {
        if (!actual) return false;
        pathParameters[param] = decodePathSegment(actual) ?? actual;
        return true;
      }
      return segment === actual;
    });
    if (matches) return { route, pathParameters };
  }
  return undefined;
}

/** The segments of a path or path template, without leading or trailing slashes. */
export function pathSegments(path: string): string[] {
  return path.replace(/^\/+|\/+$/g, '').split('/');
}

/** The name of a template segment that is a parameter (`{order-id}` -> `order-id`). */
export function parameterName(templateSegment: string): string | undefined {
  return /^\{(.+)\}$/.exec(templateSegment)?.[1];
}

/**
 * A percent-encoded path segment decoded to text, or undefined when its escapes are not UTF-8
 * (`%ZZ`, a cut-off `%E0%A4%A`, an overlong `%C0%AF`, an encoded surrogate `%ED%A0%80`).
 */
export function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
