import type { EndpointDefinition, HttpMethod, RouteDeprecation } from '../contract/endpoints.ts';
import type { ApiEndpointName } from '../contract/management-endpoints.ts';

/**
 * One route of the API and its path template. Apart from the route table (routes.ts), which lists
 * every endpoint, so that a function serving one endpoint builds its own route without loading the
 * others' definitions (the console's among them).
 */
export interface RouteDefinition {
  endpoint: ApiEndpointName;
  method: HttpMethod;
  path: string;
  /** The Lambda function serving the route (the management API's routes share `console`). */
  functionName: string;
  handlerFile: string;
  deprecation?: RouteDeprecation;
}

/** An endpoint's route, from its definition in the registry. */
export function routeOf(endpoint: ApiEndpointName, definition: EndpointDefinition): RouteDefinition {
  const { method, path, deprecation, lambda } = definition;
  const functionName = lambda ?? endpoint;
  return {
    endpoint,
    method,
    path,
    functionName,
    handlerFile: handlerFileOf(functionName),
    ...(deprecation ? { deprecation } : {}),
  };
}

/** Each function's Lambda entry: the lines binding use cases to their definitions. */
function handlerFileOf(functionName: string): string {
  return `functions/${functionName}.ts`;
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
