import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { functionTimeoutSeconds } from '../shared/contract/endpoints.ts';
import { ApiError, type ErrorCode } from '../shared/errors.ts';
import { errorResponse } from '../shared/http/responses.ts';
import { FALLBACK_HANDLER_FILE, matchRoute, PUBLIC_ROUTES } from '../shared/http/routes.ts';
import { WEB_ACL_BLOCKED_MESSAGE } from '../shared/http/web-acl-rules.ts';
import { lambdaContext, toApiGatewayEvent } from './api-gateway-event.ts';
import { consoleFile, isConsolePath } from './dashboard-files.ts';
import { FailedAuthenticationLimit } from './web-acl.ts';

type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** API Gateway refuses payloads over 10 MB before any Lambda runs; the adapter does the same. */
const GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
const PROJECT_ROOT = resolve(import.meta.dirname, '..');

const handlers = new Map<string, Promise<LambdaHandler>>();

function loadHandler(file: string): Promise<LambdaHandler> {
  let handler = handlers.get(file);
  if (!handler) {
    handler = import(pathToFileURL(resolve(PROJECT_ROOT, file)).href).then(
      (m: { handler: LambdaHandler }) => m.handler,
    );
    handlers.set(file, handler);
  }
  return handler;
}

/**
 * The local stand-in for API Gateway: matches the route table (the same one the CDK stack uses),
 * builds the proxy event and invokes the very handler module deployed to Lambda. What Node's HTTP
 * server refuses before that (see answerClientError) is answered with the envelope too.
 * `webAcl` puts the stand-in for the stage's web ACL in front (local/web-acl.ts): `npm start` and
 * the benchmarks do; test suites, which send many bad keys on purpose, do where they test it.
 */
export function createLocalServer(options: { webAcl?: boolean } = {}): Server {
  const webAcl = options.webAcl ? new FailedAuthenticationLimit() : undefined;
  const server = createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      if (body === 'too_large') {
        return send(res, gatewayError('payload_too_large', 'The request body is too large.'));
      }
      const url = parseTarget(req.url);
      if (!url) return send(res, gatewayError('invalid_request', 'The request target is not a valid URL.'));
      // Outside /v1/ is the merchant console (CloudFront's S3 origin in AWS).
      if (isConsolePath(req.method, url.pathname)) return send(res, consoleFile(url.pathname));
      // Public routes (the OpenAPI document) answer every caller; the rest go through the route table.
      const publicRoute = PUBLIC_ROUTES.find((r) => r.path === url.pathname && r.method === req.method);
      const sourceIp = req.socket.remoteAddress ?? '127.0.0.1';
      const verdict = publicRoute ? undefined : webAcl?.check(req.headers, sourceIp, Date.now());
      if (verdict && !verdict.admitted)
        return send(res, blockedByWebAcl(verdict.retryAfterSeconds, verdict.headers));
      const match = publicRoute ? undefined : matchRoute(url.pathname, undefined, req.method);
      const routed = match && match.route.method === req.method ? match : undefined;
      const event = toApiGatewayEvent(
        {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headers,
          body,
          sourceIp,
        },
        publicRoute?.path ?? routed?.route.path ?? '/{proxy+}',
        publicRoute ? {} : routed ? routed.pathParameters : { proxy: url.pathname.replace(/^\//, '') },
      );
      const file = publicRoute?.handlerFile ?? routed?.route.handlerFile ?? FALLBACK_HANDLER_FILE;
      const functionName = publicRoute?.name ?? routed?.route.functionName ?? 'fallback';
      const handler = await loadHandler(file);
      send(
        res,
        await handler(
          event,
          lambdaContext(`local-${functionName}`, functionTimeoutSeconds(functionName) * 1000),
        ),
      );
    } catch {
      send(res, gatewayError('bad_gateway', 'The handler failed to answer.'));
    }
  });
  server.on('clientError', answerClientError);
  return server;
}

/** The request target as a URL; undefined for an absolute-form target that is no URL (`http://[`). */
function parseTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

const REQUEST_LINE = /^(GET|HEAD|POST|PUT|DELETE|PATCH|OPTIONS|CONNECT|TRACE) /;

/**
 * Node refuses a request head it cannot parse or that passes `maxHeaderSize` (16 KiB: the request
 * line and headers together) before any handler runs, and by default answers a bare 400/431/408.
 * Here the answer is the envelope with X-Request-Id: 414 `uri_too_long` when the request line alone
 * did not end within the limit, 431 `request_header_fields_too_large` for the headers, 408
 * `request_timeout`, 413 for oversized chunk extensions, else 400 `invalid_request`.
 */
function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  // Node may report the rest of an already refused request again; it was answered once.
  if (!socket.writable || socket.writableEnded || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const packet = error.rawPacket?.toString('latin1') ?? '';
  const headLine = REQUEST_LINE.test(packet) && !packet.includes('\r\n');
  const [code, message]: [ErrorCode, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? headLine
        ? ['uri_too_long', 'The request URL is too long.']
        : ['request_header_fields_too_large', 'The request headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', 'The request was not received in time.']
        : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? ['payload_too_large', 'The request body is too large.']
          : ['invalid_request', 'The request is not valid HTTP/1.1.'];
  const result = gatewayError(code, message);
  const body = Buffer.from(result.body);
  const head = [
    `HTTP/1.1 ${result.statusCode} ${STATUS_CODES[result.statusCode] ?? ''}`,
    ...Object.entries(result.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${body.length}`,
    'Connection: close',
  ];
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
}

/**
 * Reads the whole body, keeping at most the gateway's limit. An oversized body is still read to its
 * end (and dropped): stopping early would destroy the socket, and the client would see a
 * connection reset instead of the 413. Events rather than `for await`: the async iterator costs a
 * few promises per chunk on every request.
 */
function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= GATEWAY_MAX_PAYLOAD_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > GATEWAY_MAX_PAYLOAD_BYTES ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', reject);
    // A client gone mid-body: no 'end' will come (a no-op once the body was read).
    req.on('close', () => reject(new Error('the request was aborted')));
  });
}

/** An error the adapter answers itself, as API Gateway does: the envelope with a fresh request id. */
function gatewayError(code: ErrorCode, message: string): APIGatewayProxyResult {
  return errorResponse(new ApiError(code, message), randomUUID());
}

/** What the stage answers a request its web ACL blocked (lib/gateway-responses.ts, WAF_FILTERED). */
function blockedByWebAcl(retryAfterSeconds: number, headers: Record<string, string>): APIGatewayProxyResult {
  const result = gatewayError('rate_limited', WEB_ACL_BLOCKED_MESSAGE);
  return { ...result, headers: { ...result.headers, ...headers, 'Retry-After': String(retryAfterSeconds) } };
}

function send(res: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '');
  res.writeHead(result.statusCode, { ...headers, 'Content-Length': String(body.length) });
  res.end(body);
}
