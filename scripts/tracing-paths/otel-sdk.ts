import { AsyncLocalStorage } from 'node:async_hooks';
import { createSocket } from 'node:dgram';
import { getXrayTraceDataFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import type { MiddlewareObj } from '@middy/core';
import {
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { Context } from 'aws-lambda';

/**
 * An OpenTelemetry SDK in the bundle, for `npm run bench -- tracing`: the API, the trace SDK with a
 * batch processor flushed at the end of each invocation, AsyncLocalStorage as its context manager,
 * and the AWS distribution's UDP exporter (OTLP protobuf to Lambda's trace endpoint, `T1S`), built
 * the way that exporter builds its datagrams. Spans as shared/tracing.ts makes them: the handler's,
 * and one per AWS call through a middleware (OpenTelemetry's AWS SDK instrumentation patches modules
 * as they load, which a bundle never does).
 */
const socket = createSocket('udp4');
socket.unref();
const exporter: SpanExporter = {
  export(spans: ReadableSpan[], done) {
    const [host, port] = (process.env.AWS_XRAY_DAEMON_ADDRESS ?? '127.0.0.1:2000').split(':');
    const payload = ProtobufTraceSerializer.serializeRequest(spans);
    if (!payload) return done({ code: ExportResultCode.FAILED });
    const datagram = `{"format":"json","version":1}\nT1S${Buffer.from(payload).toString('base64')}`;
    socket.send(datagram, Number(port), host, (error) =>
      done({ code: error ? ExportResultCode.FAILED : ExportResultCode.SUCCESS }),
    );
  },
  shutdown: async () => {},
};
const provider = new TracerProvider({
  resource: resourceFromAttributes({
    'service.name': 'abuse-decision',
    'cloud.provider': 'aws',
    'cloud.platform': 'aws_lambda',
    'faas.name': process.env.AWS_LAMBDA_FUNCTION_NAME ?? '',
  }),
  spanProcessors: [new BatchSpanProcessor({ exporter })],
});
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const tracer = trace.getTracer('abuse-decision');

/** The handler's span, entered as shared/tracing.ts enters its invocation (see there why). */
const handlerSpans = new AsyncLocalStorage<Span | undefined>();

function lambdaParent() {
  const header = getXrayTraceDataFromEnv();
  if (!process.env.AWS_XRAY_DAEMON_ADDRESS || header?.Sampled !== '1' || !header.Root || !header.Parent)
    return undefined;
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: header.Root.slice(2).replace('-', ''),
    spanId: header.Parent,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

export function invocationTracing(): MiddlewareObj<unknown, unknown, Error, Context> {
  const end = async (error: Error | null | undefined) => {
    const span = handlerSpans.getStore();
    if (!span?.isRecording()) return;
    if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    span.end();
    await provider.forceFlush();
  };
  return {
    before: (request) => {
      const parent = lambdaParent();
      handlerSpans.enterWith(
        parent
          ? tracer.startSpan(request.context.functionName, { kind: SpanKind.SERVER }, parent)
          : undefined,
      );
    },
    after: () => end(undefined),
    onError: (request) => end(request.error),
  };
}

interface TracedClient {
  middlewareStack: {
    add: (
      middleware: (
        next: (args: { input: object }) => Promise<{ output: object }>,
        context: { clientName?: string; commandName?: string },
      ) => (args: { input: object }) => Promise<{ output: object }>,
      options: { step: 'build'; name: string },
    ) => void;
  };
}

export function traceAwsClient<C extends object>(client: C): C {
  (client as unknown as TracedClient).middlewareStack.add(
    (next, commandContext) => async (args) => {
      const parent = lambdaParent();
      if (!parent) return next(args);
      const handlerSpan = handlerSpans.getStore();
      const service = (commandContext.clientName ?? '').replace(/Client$/, '');
      const method = (commandContext.commandName ?? '').replace(/Command$/, '');
      const span = tracer.startSpan(
        `${service}.${method}`,
        {
          kind: SpanKind.CLIENT,
          attributes: { 'rpc.system': 'aws-api', 'rpc.service': service, 'rpc.method': method },
        },
        handlerSpan ? trace.setSpan(ROOT_CONTEXT, handlerSpan) : parent,
      );
      try {
        return await next(args);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
        throw error;
      } finally {
        span.end();
      }
    },
    { step: 'build', name: 'traceAwsCall' },
  );
  return client;
}
