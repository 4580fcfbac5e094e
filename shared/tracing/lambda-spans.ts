import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:dgram';
import { getXrayTraceDataFromEnv } from '@aws-lambda-powertools/commons/utils/env';
import {
  type Attributes,
  encodeTraceRequest,
  type FinishedSpan,
  SPAN_KIND,
  type SpanSource,
} from './otlp-encoding.ts';

/**
 * Spans sent to Lambda's trace endpoint, no tracing SDK in the process. Lambda's active tracing
 * makes the invocation's segments itself and hands the function its trace header (`Root`, the
 * `Parent` segment of the function, `Sampled`) and the endpoint's address (AWS_XRAY_DAEMON_ADDRESS);
 * spans sent there as OTLP (prefix `T1S`, the protocol of the AWS distribution of OpenTelemetry's
 * UDP exporter) join that trace under the function's segment. Nothing is recorded unless the
 * invocation is sampled and Lambda gave an endpoint: locally neither is set, so tracing is off.
 */

const PROTOCOL_HEADER = '{"format":"json","version":1}\n';
const SAMPLED_SPANS_PREFIX = 'T1S';
/** Spans per datagram: about 20 KB once base64-encoded, well inside a UDP datagram's 64 KB. */
const SPANS_PER_DATAGRAM = 50;

export interface TraceParent {
  /** The X-Ray trace id as Lambda gives it (`1-5759e988-bd862e3fe1be46a994272793`). */
  root: string;
  /** The same id as OpenTelemetry writes it: 32 hex digits. */
  traceId: string;
  /** The function's segment, parent of what this process records. */
  parentSpanId: string;
}

/** The current invocation's trace when it is sampled and Lambda takes spans; undefined otherwise. */
export function sampledTraceParent(): TraceParent | undefined {
  if (!endpoint()) return undefined;
  const header = getXrayTraceDataFromEnv();
  if (header?.Sampled !== '1' || !header.Root || !header.Parent) return undefined;
  return { root: header.Root, traceId: header.Root.slice(2).replace('-', ''), parentSpanId: header.Parent };
}

/** A span being timed; `finish` gives it with its end time and outcome. */
export class OpenSpan {
  readonly spanId = randomBytes(8).toString('hex');
  readonly #startNs = nowNs();
  readonly trace: TraceParent;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: FinishedSpan['kind'];
  readonly #attributes: Attributes;

  constructor(
    trace: TraceParent,
    parentSpanId: string,
    name: string,
    kind: FinishedSpan['kind'],
    attributes: Attributes,
  ) {
    this.trace = trace;
    this.parentSpanId = parentSpanId;
    this.name = name;
    this.kind = kind;
    this.#attributes = attributes;
  }

  /** The trace header for a call this span makes (DynamoDB records it with the request). */
  get header(): string {
    return `Root=${this.trace.root};Parent=${this.spanId};Sampled=1`;
  }

  finish(error: unknown, attributes: Attributes = {}): FinishedSpan {
    return {
      traceId: this.trace.traceId,
      spanId: this.spanId,
      parentSpanId: this.parentSpanId,
      name: this.name,
      kind: this.kind,
      startNs: this.#startNs,
      endNs: nowNs(),
      attributes: { ...this.#attributes, ...attributes },
      error: error === undefined ? undefined : describeError(error),
    };
  }
}

/** The invocation's own span and the spans finished under it, sent together when it ends. */
export class InvocationTrace {
  readonly span: OpenSpan;
  readonly #finished: FinishedSpan[] = [];
  #ended = false;

  constructor(span: OpenSpan) {
    this.span = span;
  }

  /** A span finished under this invocation: sent with it, or at once if it ended first. */
  add(span: FinishedSpan): void {
    if (this.#ended) sendSpans([span]);
    else this.#finished.push(span);
  }

  /** Ends the invocation's span (once) and sends every span of the invocation in one go. */
  end(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#finished.push(this.span.finish(error));
    sendSpans(this.#finished);
  }
}

export function startInvocation(trace: TraceParent, name: string, attributes: Attributes): InvocationTrace {
  return new InvocationTrace(new OpenSpan(trace, trace.parentSpanId, name, SPAN_KIND.server, attributes));
}

/** What every span of this process shares: Lambda's own description of the function. */
let source: SpanSource | undefined;
function spanSource(): SpanSource {
  source ??= {
    scope: 'abuse-decision/tracing',
    resource: {
      'service.name': process.env.POWERTOOLS_SERVICE_NAME ?? 'abuse-decision',
      'cloud.provider': 'aws',
      'cloud.platform': 'aws_lambda',
      'cloud.region': process.env.AWS_REGION ?? '',
      'faas.name': process.env.AWS_LAMBDA_FUNCTION_NAME ?? '',
      'faas.version': process.env.AWS_LAMBDA_FUNCTION_VERSION ?? '',
      'faas.instance': process.env.AWS_LAMBDA_LOG_STREAM_NAME ?? '',
    },
  };
  return source;
}

let socket: Socket | undefined;

/** Sends finished spans to Lambda's endpoint; a lost datagram loses spans, never the request. */
export function sendSpans(spans: readonly FinishedSpan[]): void {
  const address = endpoint();
  if (!address || spans.length === 0) return;
  if (!socket) {
    // Loaded at the first send, not at import: a cold start does not build node:dgram's ES module.
    socket = process.getBuiltinModule('node:dgram').createSocket('udp4');
    socket.on('error', () => {});
    // The socket must not keep a process alive that has nothing else to do.
    socket.unref();
  }
  for (let i = 0; i < spans.length; i += SPANS_PER_DATAGRAM) {
    const payload = encodeTraceRequest(spanSource(), spans.slice(i, i + SPANS_PER_DATAGRAM));
    const datagram = `${PROTOCOL_HEADER}${SAMPLED_SPANS_PREFIX}${Buffer.from(payload).toString('base64')}`;
    socket.send(datagram, address.port, address.host);
  }
}

/** AWS_XRAY_DAEMON_ADDRESS: `host:port`, or the daemon's `udp:host:port tcp:host:port` form. */
let parsedEndpoint: { value: string | undefined; address: { host: string; port: number } | undefined } = {
  value: undefined,
  address: undefined,
};
function endpoint(): { host: string; port: number } | undefined {
  const value = process.env.AWS_XRAY_DAEMON_ADDRESS;
  if (value !== parsedEndpoint.value) {
    const udp = value?.split(' ').find((part) => !part.startsWith('tcp:'));
    const match = udp?.match(/^(?:udp:)?([^:]+):(\d+)$/);
    parsedEndpoint = { value, address: match ? { host: match[1]!, port: Number(match[2]) } : undefined };
  }
  return parsedEndpoint.address;
}

function nowNs(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1_000)) * 1_000n;
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
