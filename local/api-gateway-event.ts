import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

/**
 * Builds the API Gateway REST (v1) proxy event that API Gateway would send the Lambda for this
 * request, so the local server runs handlers exactly as AWS does.
 */
export interface IncomingRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  sourceIp: string;
}

export function toApiGatewayEvent(
  request: IncomingRequest,
  resource: string,
  pathParameters: Record<string, string> | null,
): APIGatewayProxyEvent {
  const url = new URL(request.url, 'http://localhost');
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    headers[name] = values.join(',');
    multiValueHeaders[name] = values;
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    multiQuery[name] = [...(multiQuery[name] ?? []), value];
  }
  const now = Date.now();
  // Bytes that are not UTF-8 go base64-encoded, as binary: decoded to text here they would turn into
  // U+FFFD, and the handler could no longer tell them from a real U+FFFD (nor refuse them).
  const textual = isTextual(headers) && isUtf8(request.body);
  return {
    resource,
    path: url.pathname,
    httpMethod: request.method,
    headers,
    multiValueHeaders,
    queryStringParameters: Object.keys(query).length ? query : null,
    multiValueQueryStringParameters: Object.keys(multiQuery).length ? multiQuery : null,
    pathParameters,
    stageVariables: null,
    body: request.body.length ? request.body.toString(textual ? 'utf8' : 'base64') : null,
    isBase64Encoded: request.body.length > 0 && !textual,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method,
      path: `/local${url.pathname}`,
      stage: 'local',
      requestId: randomUUID(),
      requestTimeEpoch: now,
      resourceId: 'local',
      resourcePath: resource,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp,
        user: null,
        userAgent: headers['user-agent'] ?? null,
        userArn: null,
      },
    },
  };
}

/** API Gateway passes JSON and text bodies as text, anything else base64-encoded. */
function isTextual(headers: Record<string, string>): boolean {
  const type =
    Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? 'application/json';
  return /json|text|xml|x-www-form-urlencoded/i.test(type);
}

export function lambdaContext(functionName: string, timeoutMs = 10_000): Context {
  const started = Date.now();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (Date.now() - started)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
