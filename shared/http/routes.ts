import type { HttpMethod } from '../contract/endpoints.ts';
import { API_DEFINITIONS, API_ENDPOINTS } from '../contract/management-endpoints.ts';
import { decodePathSegment, parameterName, pathSegments, type RouteDefinition, routeOf } from './route.ts';

/**
 * The API's routes, derived from the endpoint registry (shared/contract/endpoints.ts and
 * management-endpoints.ts) and read by the local HTTP adapter and by the CDK stack, so both expose
 * the same surface. `path` uses API Gateway's resource syntax; `handlerFile` is the handler module
 * under functions/ (exporting `handler`).
 */
export const ROUTES: readonly RouteDefinition[] = API_ENDPOINTS.map((endpoint) =>
  routeOf(endpoint, API_DEFINITIONS[endpoint]),
);

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
  /** Every method the matched path answers (for 405's Allow). */
  methods: HttpMethod[];
}

/**
 * Finds the route whose path template matches a concrete (percent-encoded) path: the one of `method`
 * when the path has one, else the path's first route (the caller answers 405).
 * Parameters are decoded where they decode and left as sent where they do not: matching never
 * fails on encoding; the handler reads its ids strictly (shared/http/path-parameters.ts).
 */
export function matchRoute(
  path: string,
  routes: readonly RouteDefinition[] = ROUTES,
  method?: string,
): RouteMatch | undefined {
  const parts = pathSegments(path);
  const matches = compiledRoutes(routes).flatMap(({ route, template }) => {
    const pathParameters = matchTemplate(template, parts);
    return pathParameters ? [{ route, pathParameters }] : [];
  });
  const samePath = matches.filter((m) => m.route.path === matches[0]?.route.path);
  const chosen = samePath.find((m) => m.route.method === method) ?? samePath[0];
  return chosen && { ...chosen, methods: samePath.map((m) => m.route.method) };
}

/** A template's segments: a literal, or the name of the parameter it stands for. */
type TemplateSegment = { literal: string } | { parameter: string };

/** Each route table's templates, split once rather than on every request. */
const compiledTables = new WeakMap<
  readonly RouteDefinition[],
  { route: RouteDefinition; template: TemplateSegment[] }[]
>();

function compiledRoutes(routes: readonly RouteDefinition[]) {
  let compiled = compiledTables.get(routes);
  if (!compiled) {
    compiled = routes.map((route) => ({
      route,
      template: pathSegments(route.path).map((segment): TemplateSegment => {
        const parameter = parameterName(segment);
        return parameter ? { parameter } : { literal: segment };
      }),
    }));
    compiledTables.set(routes, compiled);
  }
  return compiled;
}

/** The path's parameters when its segments match the template, else undefined. */
function matchTemplate(template: TemplateSegment[], parts: string[]): Record<string, string> | undefined {
  if (template.length !== parts.length) return undefined;
  const pathParameters: Record<string, string> = {};
  const matches = template.every((segment, i) => {
    const actual = parts[i] ?? '';
    if ('parameter' in segment) {
      if (!actual) return false;
      pathParameters[segment.parameter] = decodePathSegment(actual) ?? actual;
      return true;
    }
    return segment.literal === actual;
  });
  return matches ? pathParameters : undefined;
}
