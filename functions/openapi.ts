import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import document from '../openapi.json' with { type: 'json' };

/** The committed document (npm run openapi), serialised once per instance. */
const body = JSON.stringify(document);

/**
 * GET /v1/openapi.json: the API's OpenAPI 3.1 document, public like any published API reference, so
 * it needs no key and touches no table.
 */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/json',
      'X-Request-Id': event.requestContext?.requestId || randomUUID(),
      'Cache-Control': 'public, max-age=300',
    },
    body,
  };
}
