import type { APIGatewayProxyEvent } from 'aws-lambda';
import { toApiGatewayEvent } from '../../local/api-gateway-event.ts';

/** The API Gateway event of a JSON POST to `path` (a route without path parameters), as a handler gets it. */
export function jsonPostEvent(path: string, body: unknown, apiKey?: string): APIGatewayProxyEvent {
  return toApiGatewayEvent(
    {
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: apiKey } : {}) },
      body: Buffer.from(JSON.stringify(body)),
      sourceIp: '127.0.0.1',
    },
    path,
    null,
  );
}
