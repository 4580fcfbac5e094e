/**
 * Spans as an OTLP `ExportTraceServiceRequest` in protobuf (opentelemetry-proto, trace/v1, a stable
 * format): the payload Lambda's trace endpoint takes from the AWS distribution of OpenTelemetry.
 * Only the fields written here are encoded; protobuf readers skip what a message leaves out.
 */

export type AttributeValue = string | number | boolean | readonly string[];
export type Attributes = Readonly<Record<string, AttributeValue>>;

/** OTLP's SpanKind and Status.StatusCode numbers. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
export const STATUS_CODE = { ok: 1, error: 2 } as const;

export interface FinishedSpan {
  /** 32 and 16 lowercase hex digits. */
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: (typeof SPAN_KIND)[keyof typeof SPAN_KIND];
  /** Nanoseconds since the Unix epoch. */
  startNs: bigint;
  endNs: bigint;
  attributes: Attributes;
  error: string | undefined;
}

export interface SpanSource {
  /** Attributes of the process that made the spans (service.name, cloud.region, faas.name, ...). */
  resource: Attributes;
  /** The instrumentation scope's name. */
  scope: string;
}

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const FIXED32 = 5;
const encoder = new TextEncoder();

/** The request carrying `spans`, all from `source`. */
export function encodeTraceRequest(source: SpanSource, spans: readonly FinishedSpan[]): Uint8Array {
  const scopeSpans = message([
    bytesField(1, message([stringField(1, source.scope)])),
    ...spans.map((span) => bytesField(2, encodeSpan(span))),
  ]);
  const resourceSpans = message([
    bytesField(1, message(keyValues(1, source.resource))),
    bytesField(2, scopeSpans),
  ]);
  return message([bytesField(1, resourceSpans)]);
}

function encodeSpan(span: FinishedSpan): Uint8Array {
  const status =
    span.error === undefined
      ? [varintField(3, STATUS_CODE.ok)]
      : [stringField(2, span.error), varintField(3, STATUS_CODE.error)];
  return message([
    bytesField(1, hex(span.traceId)),
    bytesField(2, hex(span.spanId)),
    ...(span.parentSpanId ? [bytesField(4, hex(span.parentSpanId))] : []),
    stringField(5, span.name),
    varintField(6, span.kind),
    fixed64Field(7, span.startNs),
    fixed64Field(8, span.endNs),
    ...keyValues(9, span.attributes),
    bytesField(15, message(status)),
    // flags: the W3C trace flags (sampled) in the low byte.
    fixed32Field(16, 1),
  ]);
}

function keyValues(field: number, attributes: Attributes): Uint8Array[] {
  return Object.entries(attributes).map(([key, value]) =>
    bytesField(field, message([stringField(1, key), bytesField(2, anyValue(value))])),
  );
}

/** OTLP's AnyValue: string 1, bool 2, int 3, double 4, array 5. */
function anyValue(value: AttributeValue): Uint8Array {
  if (typeof value === 'string') return stringField(1, value);
  if (typeof value === 'boolean') return varintField(2, value ? 1 : 0);
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value) && value >= 0) return varintField(3, value);
    const bytes = new Uint8Array(9);
    bytes[0] = (4 << 3) | FIXED64;
    new DataView(bytes.buffer).setFloat64(1, value, true);
    return bytes;
  }
  return bytesField(5, message(value.map((item) => bytesField(1, stringField(1, item)))));
}

function message(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return bytes;
}

function varintField(field: number, value: number): Uint8Array {
  return Uint8Array.from([...varint((field << 3) | VARINT), ...varint(value)]);
}

function bytesField(field: number, bytes: Uint8Array): Uint8Array {
  return message([Uint8Array.from([...varint((field << 3) | BYTES), ...varint(bytes.length)]), bytes]);
}

function stringField(field: number, text: string): Uint8Array {
  return bytesField(field, encoder.encode(text));
}

function fixed64Field(field: number, value: bigint): Uint8Array {
  const tag = varint((field << 3) | FIXED64);
  const bytes = new Uint8Array(tag.length + 8);
  bytes.set(tag);
  new DataView(bytes.buffer).setBigUint64(tag.length, value, true);
  return bytes;
}

function fixed32Field(field: number, value: number): Uint8Array {
  const tag = varint((field << 3) | FIXED32);
  const bytes = new Uint8Array(tag.length + 4);
  bytes.set(tag);
  new DataView(bytes.buffer).setUint32(tag.length, value, true);
  return bytes;
}

function hex(digits: string): Uint8Array {
  const bytes = new Uint8Array(digits.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}
