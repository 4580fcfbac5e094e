/**
 * What a process sent to Lambda's trace endpoint (AWS_XRAY_DAEMON_ADDRESS), read back for tests and
 * `npm run bench -- tracing`: X-Ray segment documents (JSON, from the X-Ray SDK) and OTLP spans
 * (protobuf, base64, prefix `T1S`, from OpenTelemetry exporters and shared/tracing.ts), both as one
 * shape. Each datagram starts with the daemon protocol's header line.
 */

export interface SentSpan {
  /** 32 hex digits, however the sender wrote the trace id. */
  traceId: string;
  spanId: string;
  parentId: string | undefined;
  name: string;
  /** For a call to an AWS service: the service (`DynamoDB`) and its operation (`BatchGetItem`). */
  awsService: string | undefined;
  awsOperation: string | undefined;
  attributes: Record<string, unknown>;
  /** Marked as failed: an OTLP error status, or an X-Ray error or fault. */
  failed: boolean;
}

export function spansOfDatagram(datagram: Buffer): SentSpan[] {
  const text = datagram.toString('utf8');
  const body = text.slice(text.indexOf('\n') + 1);
  if (body.startsWith('T1S') || body.startsWith('T1U'))
    return otlpSpans(Buffer.from(body.slice(3), 'base64'));
  const document = JSON.parse(body) as {
    trace_id: string;
    id: string;
    parent_id?: string;
    name: string;
    namespace?: string;
    aws?: { operation?: string };
    error?: boolean;
    fault?: boolean;
  };
  const aws = document.namespace === 'aws';
  return [
    {
      traceId: document.trace_id.slice(2).replace('-', ''),
      spanId: document.id,
      parentId: document.parent_id,
      name: document.name,
      awsService: aws ? document.name : undefined,
      awsOperation: aws ? document.aws?.operation : undefined,
      attributes: {},
      failed: Boolean(document.error || document.fault),
    },
  ];
}

type Field = { number: number; value: bigint | Uint8Array };

/** A protobuf message's fields in order (varints and fixed ints as bigints, the rest as bytes). */
function fields(bytes: Uint8Array): Field[] {
  const out: Field[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = bytes[offset++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return result;
      shift += 7n;
    }
  };
  while (offset < bytes.length) {
    const tag = Number(varint());
    const number = tag >> 3;
    switch (tag & 7) {
      case 0:
        out.push({ number, value: varint() });
        break;
      case 1:
        out.push({ number, value: view.getBigUint64(offset, true) });
        offset += 8;
        break;
      case 2: {
        const length = Number(varint());
        out.push({ number, value: bytes.subarray(offset, offset + length) });
        offset += length;
        break;
      }
      case 5:
        out.push({ number, value: BigInt(view.getUint32(offset, true)) });
        offset += 4;
        break;
      default:
        throw new Error(`unexpected protobuf wire type in field ${number}`);
    }
  }
  return out;
}

const bytesOf = (list: Field[], number: number) =>
  list.filter((f) => f.number === number).map((f) => f.value as Uint8Array);
const text = (bytes: Uint8Array | undefined) => (bytes ? new TextDecoder().decode(bytes) : '');
const hex = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('hex') : '');

function anyValue(bytes: Uint8Array): unknown {
  const [field] = fields(bytes);
  if (!field) return undefined;
  switch (field.number) {
    case 1:
      return text(field.value as Uint8Array);
    case 2:
      return field.value === 1n;
    case 3:
      return Number(field.value);
    case 4: {
      const buffer = new DataView(new ArrayBuffer(8));
      buffer.setBigUint64(0, field.value as bigint, true);
      return buffer.getFloat64(0, true);
    }
    case 5:
      return bytesOf(fields(field.value as Uint8Array), 1).map(anyValue);
    default:
      return undefined;
  }
}

function attributes(list: Field[], number: number): Record<string, unknown> {
  return Object.fromEntries(
    bytesOf(list, number).map((keyValue) => {
      const parts = fields(keyValue);
      return [text(bytesOf(parts, 1)[0]), anyValue(bytesOf(parts, 2)[0] ?? new Uint8Array())];
    }),
  );
}

/** ExportTraceServiceRequest -> ResourceSpans (1) -> ScopeSpans (2) -> Span (2). */
function otlpSpans(request: Uint8Array): SentSpan[] {
  return bytesOf(fields(request), 1).flatMap((resourceSpans) =>
    bytesOf(fields(resourceSpans), 2).flatMap((scopeSpans) =>
      bytesOf(fields(scopeSpans), 2).map((spanBytes) => {
        const span = fields(spanBytes);
        const spanAttributes = attributes(span, 9);
        const parent = hex(bytesOf(span, 4)[0]);
        const aws = spanAttributes['rpc.system'] === 'aws-api';
        const status = fields(bytesOf(span, 15)[0] ?? new Uint8Array());
        return {
          traceId: hex(bytesOf(span, 1)[0]),
          spanId: hex(bytesOf(span, 2)[0]),
          parentId: parent || undefined,
          name: text(bytesOf(span, 5)[0]),
          awsService: aws ? String(spanAttributes['rpc.service']) : undefined,
          awsOperation: aws ? String(spanAttributes['rpc.method']) : undefined,
          attributes: spanAttributes,
          // Status.code (3): 2 is ERROR.
          failed: status.some((field) => field.number === 3 && field.value === 2n),
        };
      }),
    ),
  );
}
