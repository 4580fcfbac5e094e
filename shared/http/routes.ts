/**
 * The API's routes, read by the local HTTP adapter and by the CDK stack, so both expose the same
 * surface. `path` uses API Gateway's resource syntax; `handlerFile` is the handler module under
 * functions/ (exporting `handler`).
 */
export const ENDPOINTS = ['order', 'return', 'disposition', 'dispute', 'signup', 'login', 'account'] as const;
export type EndpointName = (typeof ENDPOINTS)[number];

export interface RouteDefinition {
  endpoint: EndpointName;
  method: 'POST';
  path: string;
  handlerFile: string;
  /** Set once a successor exists: shared/http/middleware/route-lifecycle.ts announces it, then retires it. */
  deprecation?: RouteDeprecation;
}

/** A route's way out (decisions.md, Versioning): announced on every response, then 410 `gone`. */
export interface RouteDeprecation {
  /** When the route was (or will be) deprecated, ISO 8601. */
  deprecatedAt: string;
  /** When it stops answering, ISO 8601; contract 8 gives 12 months after deprecation. */
  sunsetAt: string;
  /** The route that replaces it, e.g. `/v2/order`. */
  successorPath: string;
  migrationGuideUrl: string;
}

export const ROUTES: readonly RouteDefinition[] = [
  { endpoint: 'order', method: 'POST', path: '/v1/order', handlerFile: 'functions/order.ts' },
  { endpoint: 'return', method: 'POST', path: '/v1/return', handlerFile: 'functions/return.ts' },
  {
    endpoint: 'disposition',
    method: 'POST',
    path: '/v1/return/disposition/{return-id}',
    handlerFile: 'functions/disposition.ts',
  },
  {
    endpoint: 'dispute',
    method: 'POST',
    path: '/v1/order/dispute/{order-id}',
    handlerFile: 'functions/dispute.ts',
  },
  { endpoint: 'signup', method: 'POST', path: '/v1/evaluate/signup', handlerFile: 'functions/signup.ts' },
  { endpoint: 'login', method: 'POST', path: '/v1/evaluate/login', handlerFile: 'functions/login.ts' },
  { endpoint: 'account', method: 'POST', path: '/v1/evaluate/account', handlerFile: 'functions/account.ts' },
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
