import type { MiddlewareObj } from '@middy/core';

/**
 * Lambda's active tracing alone, for `npm run bench -- tracing`: no tracing in the process, so an
 * invocation's trace holds only the segments Lambda makes (no handler or DynamoDB spans). The floor
 * of every other path; also the in-bundle half of the ADOT layer path, whose spans come from the layer.
 */
// middy takes no middleware without a hook: one that does nothing.
export const invocationTracing = (): MiddlewareObj => ({ before: () => undefined });

export const traceAwsClient = <C extends object>(client: C): C => client;
