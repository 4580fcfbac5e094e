import { AsyncLocalStorage } from 'node:async_hooks';
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import {
  type InvocationTrace,
  OpenSpan,
  sampledTraceParent,
  sendSpans,
  startInvocation,
} from './tracing/lambda-spans.ts';
import { type Attributes, SPAN_KIND } from './tracing/otlp-encoding.ts';

/**
 * Tracing, as docs/operations.md (Tracing) describes: Lambda's active tracing records each
 * invocation; this module adds, with no tracing SDK, one span for the handler and one per AWS call
 * (DynamoDB, S3), sent to Lambda's trace endpoint (shared/tracing/lambda-spans.ts).
 */

/**
 * The invocation's trace, for every span started under the handler: its own storage rather than
 * the request scope's, which the rate-limit check leaves (shared/request-scope.ts) while still
 * being part of the request. Entered by the middleware's `before`, which middy calls synchronously
 * in the invocation's own async function; the request scope's `run` around each invocation
 * (shared/http/http-handler.ts) keeps it from reaching anything outside that invocation.
 */
const invocations = new AsyncLocalStorage<InvocationTrace | undefined>();

/** Whether the process has yet to serve its first invocation (Lambda's cold start). */
let coldStart = true;

/** The handler's span (middy): opened before the middlewares after this one, ended with the answer. */
export function invocationTracing(): MiddlewareObj<unknown, unknown, Error, Context> {
  const end = (error: unknown) => invocations.getStore()?.end(error);
  return {
    before: (request) => {
      const trace = sampledTraceParent();
      const attributes = {
        'faas.trigger': 'http',
        'faas.coldstart': coldStart,
        'faas.invocation_id': request.context.awsRequestId,
      };
      coldStart = false;
      invocations.enterWith(
        trace ? startInvocation(trace, request.context.functionName, attributes) : undefined,
      );
    },
    after: () => end(undefined),
    onError: (request) => end(request.error),
  };
}

interface TracedClient {
  config: { region: () => Promise<string> };
  middlewareStack: {
    add: (
      middleware: (
        next: (args: { input: object; request?: unknown }) => Promise<{ output: object }>,
        context: { clientName?: string; commandName?: string },
      ) => (args: { input: object; request?: unknown }) => Promise<{ output: object }>,
      options: { step: 'build'; name: string },
    ) => void;
  };
}

/**
 * One span per call of an AWS SDK v3 client, child of the handler's span (or, outside a handler,
 * of the function's segment), with the attributes OpenTelemetry's AWS SDK instrumentation gives it
 * (`rpc.system` aws-api, `rpc.service`, `rpc.method`, the DynamoDB table names). Added at the
 * build step, as the X-Ray SDK did: it spans the SDK's retries, not the time before the call.
 */
export function traceAwsClient<C extends object>(client: C): C {
  const traced = client as unknown as TracedClient;
  let region: string | undefined;
  traced.middlewareStack.add(
    (next, context) => async (args) => {
      const invocation = invocations.getStore();
      const trace = invocation?.span.trace ?? sampledTraceParent();
      if (!trace) return next(args);
      region ??= await traced.config.region();
      const service = (context.clientName ?? '').replace(/Client$/, '');
      const method = (context.commandName ?? '').replace(/Command$/, '');
      const span = new OpenSpan(
        trace,
        invocation?.span.spanId ?? trace.parentSpanId,
        `${service}.${method}`,
        SPAN_KIND.client,
        {
          'rpc.system': 'aws-api',
          'rpc.service': service,
          'rpc.method': method,
          'cloud.region': region,
          ...tableNames(args.input),
        },
      );
      const request = args.request as { headers?: Record<string, string> } | undefined;
      if (request?.headers) request.headers['X-Amzn-Trace-Id'] = span.header;
      const record = (error: unknown, output: unknown) => {
        const finished = span.finish(error, responseAttributes(error ?? output));
        if (invocation) invocation.add(finished);
        else sendSpans([finished]);
      };
      try {
        const result = await next(args);
        record(undefined, result.output);
        return result;
      } catch (error) {
        record(error, undefined);
        throw error;
      }
    },
    { step: 'build', name: 'traceAwsCall' },
  );
  return client;
}

function tableNames(input: object): Attributes {
  const names = new Set<string>();
  const add = (name: unknown) => {
    if (typeof name === 'string') names.add(name);
  };
  const fields = input as {
    TableName?: unknown;
    RequestItems?: object;
    TransactItems?: readonly Record<string, { TableName?: unknown } | undefined>[];
  };
  add(fields.TableName);
  for (const name of Object.keys(fields.RequestItems ?? {})) add(name);
  for (const item of fields.TransactItems ?? [])
    for (const action of Object.values(item)) add(action?.TableName);
  return names.size > 0 ? { 'aws.dynamodb.table_names': [...names] } : {};
}

function responseAttributes(outcome: unknown): Attributes {
  const metadata = (outcome as { $metadata?: { httpStatusCode?: number; requestId?: string } } | undefined)
    ?.$metadata;
  return {
    ...(metadata?.httpStatusCode !== undefined
      ? { 'http.response.status_code': metadata.httpStatusCode }
      : {}),
    ...(metadata?.requestId !== undefined ? { 'aws.request_id': metadata.requestId } : {}),
  };
}
