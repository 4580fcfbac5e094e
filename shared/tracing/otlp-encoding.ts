/**
 * Spans as an OTLP `ExportTraceServiceRequest` in protobuf (opentelemetry-proto, trace/v1, a stable
 * format): the payload Lambda's trace endpoint takes from the AWS distribution of OpenTelemetry.
 * Only the fields written here are encoded; protobuf readers skip what a message leaves out.
 */

type AttributeValue = string | number | boolean | readonly string[];
export type Attributes = Readonly<Record<string, AttributeValue>>;

/** OTLP's SpanKind and Status.StatusCode numbers. */
export const SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;
const STATUS_CODE = { ok: 1, error: 2 } as const;

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

/** The request carrying `spans`, all from `source`. */
export function encodeTraceRequest(source: SpanSource, spans: readonly FinishedSpan[]): Uint8Array {
  const out = new ProtoWriter();
  const request = out.open(1); // ExportTraceServiceRequest.resource_spans
  out.bytes(1, encodedResource(source)); // ResourceSpans.resource
  const scopeSpans = out.open(2); // ResourceSpans.scope_spans
  out.bytes(1, encodedScope(source)); // ScopeSpans.scope
  for (const span of spans) {
    const message = out.open(2); // ScopeSpans.spans
    writeSpan(out, span);
    out.close(message);
  }
  out.close(scopeSpans);
  out.close(request);
  return out.finish();
}

function writeSpan(out: ProtoWriter, span: FinishedSpan): void {
  out.hex(1, span.traceId);
  out.hex(2, span.spanId);
  if (span.parentSpanId) out.hex(4, span.parentSpanId);
  out.string(5, span.name);
  out.varint(6, span.kind);
  out.fixed64(7, span.startNs);
  out.fixed64(8, span.endNs);
  writeAttributes(out, 9, span.attributes);
  const status = out.open(15);
  if (span.error !== undefined) out.string(2, span.error);
  out.varint(3, span.error === undefined ? STATUS_CODE.ok : STATUS_CODE.error);
  out.close(status);
  // flags: the W3C trace flags (sampled) in the low byte.
  out.fixed32(16, 1);
}

/** KeyValue { key 1, AnyValue value 2 }; AnyValue: string 1, bool 2, int 3, double 4, array 5. */
function writeAttributes(out: ProtoWriter, field: number, attributes: Attributes): void {
  for (const key in attributes) {
    const value = attributes[key]!;
    const keyValue = out.open(field);
    out.string(1, key);
    const any = out.open(2);
    if (typeof value === 'string') out.string(1, value);
    else if (typeof value === 'boolean') out.varint(2, value ? 1 : 0);
    else if (typeof value === 'number') {
      if (Number.isSafeInteger(value) && value >= 0) out.varint(3, value);
      else out.double(4, value);
    } else {
      const array = out.open(5);
      for (const item of value) {
        const element = out.open(1);
        out.string(1, item);
        out.close(element);
      }
      out.close(array);
    }
    out.close(any);
    out.close(keyValue);
  }
}

/** The resource and scope are the same for every request of a process: encoded once. */
const resources = new WeakMap<SpanSource, { resource: Uint8Array; scope: Uint8Array }>();
function encodedParts(source: SpanSource) {
  let parts = resources.get(source);
  if (!parts) {
    const resource = new ProtoWriter();
    writeAttributes(resource, 1, source.resource);
    const scope = new ProtoWriter();
    scope.string(1, source.scope);
    parts = { resource: resource.finish(), scope: scope.finish() };
    resources.set(source, parts);
  }
  return parts;
}
const encodedResource = (source: SpanSource) => encodedParts(source).resource;
const encodedScope = (source: SpanSource) => encodedParts(source).scope;

/**
 * A protobuf writer into one growing buffer. A nested message is opened with one byte kept for its
 * length and closed once its size is known, moving its bytes along when the length needs more.
 */
class ProtoWriter {
  #buffer = Buffer.alloc(1024);
  #view = viewOf(this.#buffer);
  #length = 0;

  finish(): Uint8Array {
    return this.#buffer.subarray(0, this.#length);
  }

  open(field: number): number {
    this.#tag(field, BYTES);
    this.#reserve(1);
    this.#length += 1;
    return this.#length;
  }

  close(start: number): void {
    const size = this.#length - start;
    const lengthBytes = varintSize(size);
    if (lengthBytes > 1) {
      this.#reserve(lengthBytes - 1);
      this.#buffer.copyWithin(start + lengthBytes - 1, start, this.#length);
      this.#length += lengthBytes - 1;
    }
    let at = start - 1;
    let rest = size;
    while (rest >= 0x80) {
      this.#buffer[at++] = (rest & 0x7f) | 0x80;
      rest >>>= 7;
    }
    this.#buffer[at] = rest;
  }

  varint(field: number, value: number): void {
    this.#tag(field, VARINT);
    this.#varint(value);
  }

  bytes(field: number, bytes: Uint8Array): void {
    this.#tag(field, BYTES);
    this.#varint(bytes.length);
    this.#reserve(bytes.length);
    this.#buffer.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  string(field: number, text: string): void {
    const size = Buffer.byteLength(text);
    this.#tag(field, BYTES);
    this.#varint(size);
    this.#reserve(size);
    this.#buffer.write(text, this.#length, 'utf8');
    this.#length += size;
  }

  /** A hex id (trace or span id) as its bytes. */
  hex(field: number, digits: string): void {
    const size = digits.length / 2;
    this.#tag(field, BYTES);
    this.#varint(size);
    this.#reserve(size);
    this.#buffer.write(digits, this.#length, 'hex');
    this.#length += size;
  }

  fixed64(field: number, value: bigint): void {
    this.#tag(field, FIXED64);
    this.#reserve(8);
    this.#view.setBigUint64(this.#length, value, true);
    this.#length += 8;
  }

  double(field: number, value: number): void {
    this.#tag(field, FIXED64);
    this.#reserve(8);
    this.#view.setFloat64(this.#length, value, true);
    this.#length += 8;
  }

  fixed32(field: number, value: number): void {
    this.#tag(field, FIXED32);
    this.#reserve(4);
    this.#view.setUint32(this.#length, value, true);
    this.#length += 4;
  }

  #tag(field: number, wireType: number): void {
    this.#varint(field * 8 + wireType);
  }

  #varint(value: number): void {
    this.#reserve(10);
    let rest = value;
    while (rest >= 0x80) {
      this.#buffer[this.#length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.#buffer[this.#length++] = rest;
  }

  #reserve(bytes: number): void {
    if (this.#length + bytes <= this.#buffer.length) return;
    const grown = Buffer.alloc(Math.max(this.#buffer.length * 2, this.#length + bytes));
    grown.set(this.#buffer.subarray(0, this.#length));
    this.#buffer = grown;
    this.#view = viewOf(grown);
  }
}

function viewOf(buffer: Buffer): DataView {
  return new DataView(buffer.buffer, buffer.byteOffset, buffer.length);
}

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}
