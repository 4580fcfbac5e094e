import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { FALLBACK_HANDLER_FILE, matchRoute, PUBLIC_ROUTES } from '../shared/http/routes.ts';
import { lambdaContext, toApiGatewayEvent } from './api-gateway-event.ts';

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
 * builds the proxy event and invokes the very handler module deployed to Lambda.
 */
export function createLocalServer(): Server {
  return createServer(async (req, res) => {
    try {
      const body = await readBody(req);
      if (body === 'too_large') {
        return send(res, gatewayError(413, 'payload_too_large', 'The request body is too large.'));
      }
      const url = new URL(req.url ?? '/', 'http://localhost');
      const publicRoute = PUBLIC_ROUTES.find((r) => r.path === url.pathname && r.method === req.method);
      if (publicRoute) {
        const event = toApiGatewayEvent(
          {
            method: publicRoute.method,
            url: req.url ?? '/',
            headers: req.headers,
            body,
            sourceIp: '127.0.0.1',
          },
          publicRoute.path,
          {},
        );
        const handler = await loadHandler(publicRoute.handlerFile);
        return send(res, await handler(event, lambdaContext(`local-${publicRoute.name}`)));
      }
      const match = matchRoute(url.pathname);
      const routed = match && match.route.method === req.method ? match : undefined;
      const event = toApiGatewayEvent(
        {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: req.headers,
          body,
          sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        },
        routed ? routed.route.path : '/{proxy+}',
        routed ? routed.pathParameters : { proxy: url.pathname.replace(/^\//, '') },
      );
      const file = routed ? routed.route.handlerFile : FALLBACK_HANDLER_FILE;
      const handler = await loadHandler(file);
      send(
        res,
        await handler(event, lambdaContext(routed ? `local-${routed.route.endpoint}` : 'local-fallback')),
      );
    } catch {
      send(res, gatewayError(502, 'bad_gateway', 'The handler failed to answer.'));
    }
  });
}

/**
 * Reads the whole body, keeping at most the gateway's limit. An oversized body is still read to its
 * end (and dropped): leaving the loop early would destroy the socket, and the client would see a
 * connection reset instead of the 413.
 */
async function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= GATEWAY_MAX_PAYLOAD_BYTES) chunks.push(chunk as Buffer);
  }
  return size > GATEWAY_MAX_PAYLOAD_BYTES ? 'too_large' : Buffer.concat(chunks);
}

function gatewayError(statusCode: number, code: string, message: string): APIGatewayProxyResult {
  const requestId = randomUUID();
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId },
    body: JSON.stringify({ error: { code, message, requestId } }),
  };
}

function send(res: import('node:http').ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {}))
    headers[name] = values.map(String);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '');
  res.writeHead(result.statusCode, { ...headers, 'Content-Length': String(body.length) });
  res.end(body);
}
