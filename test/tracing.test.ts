import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, GetItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import type { Request } from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '../local/api-gateway-event.ts';
import { runInRequestScope } from '../shared/request-scope.ts';
import { invocationTracing, traceAwsClient } from '../shared/tracing.ts';
import { type SentSpan, spansOfDatagram } from './support/trace-datagrams.ts';

const ROOT = '1-6741b2f0-5d4c3b2a1f0e9d8c7b6a5948';
const TRACE_ID = '6741b2f05d4c3b2a1f0e9d8c7b6a5948';
const FUNCTION_SEGMENT = '53995c3f42cd8ad8';
const table = process.env.TABLE_NAME!;

let endpoint: Socket;
let received: SentSpan[] = [];
const datagrams: Buffer[] = [];

beforeAll(async () => {
  endpoint = createSocket('udp4');
  endpoint.on('message', (datagram) => {
    datagrams.push(datagram);
    received.push(...spansOfDatagram(datagram));
  });
  await new Promise<void>((done) => endpoint.bind(0, '127.0.0.1', done));
});
afterAll(() => endpoint.close());
afterEach(() => {
  received = [];
  datagrams.length = 0;
  delete process.env.AWS_XRAY_DAEMON_ADDRESS;
  delete process.env._X_AMZN_TRACE_ID;
});

/** Lambda with active tracing: the endpoint's address and the invocation's trace header. */
function activeTracing(sampled = true, address = `127.0.0.1:${(endpoint.address() as AddressInfo).port}`) {
  process.env.AWS_XRAY_DAEMON_ADDRESS = address;
  process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=${FUNCTION_SEGMENT};Sampled=${sampled ? 1 : 0}`;
}

function tracedClient() {
  return traceAwsClient(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: process.env.DYNAMODB_ENDPOINT!,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    }),
  );
}

/** A handler behind the tracing middleware, invoked as http-handler.ts invokes one (in a request scope). */
async function invoke(handler: () => Promise<unknown>): Promise<void> {
  const middleware = invocationTracing();
  const request = {
    event: {},
    context: lambdaContext('order') as Context,
    response: undefined,
    error: null,
    internal: {},
  } as Request<unknown, unknown, Error, Context>;
  await runInRequestScope({ deadline: Date.now() + 5_000 }, async () => {
    await middleware.before?.(request);
    try {
      request.response = await handler();
      await middleware.after?.(request);
    } catch (error) {
      request.error = error as Error;
      await middleware.onError?.(request);
    }
  });
}

async function arrived(count: number): Promise<SentSpan[]> {
  for (let i = 0; i < 100 && received.length < count; i++) await new Promise((done) => setTimeout(done, 10));
  return received;
}

describe('tracing (shared/tracing.ts)', () => {
  it('sends the invocation as one datagram: its span under the function segment, each call under it, failures marked', async () => {
    activeTracing();
    const client = tracedClient();
    await invoke(async () => {
      await client.send(
        new GetItemCommand({ TableName: table, Key: { PK: { S: 'nobody' }, SK: { S: 'x' } } }),
      );
      await client
        .send(new GetItemCommand({ TableName: 'no-such-table', Key: { PK: { S: 'x' }, SK: { S: 'x' } } }))
        .catch(() => undefined);
    });
    const spans = await arrived(3);
    expect(datagrams).toHaveLength(1);
    expect(datagrams[0]!.toString('utf8')).toMatch(/^\{"format":"json","version":1\}\nT1S/);
    const invocation = spans.find((span) => span.parentId === FUNCTION_SEGMENT);
    expect(invocation).toMatchObject({ traceId: TRACE_ID, name: 'order' });
    const calls = spans.filter((span) => span.awsService === 'DynamoDB');
    expect(
      calls.map((span) => [span.awsOperation, span.parentId, span.attributes['aws.dynamodb.table_names']]),
    ).toEqual([
      ['GetItem', invocation!.spanId, [table]],
      ['GetItem', invocation!.spanId, ['no-such-table']],
    ]);
    expect(calls.map((span) => [span.attributes['http.response.status_code'], span.failed])).toEqual([
      [200, false],
      [400, true],
    ]);
    expect(invocation?.failed).toBe(false);
    expect(spans).toHaveLength(3);
  });

  it('marks the invocation failed when the handler throws, and names every table of a transaction', async () => {
    activeTracing();
    const client = tracedClient();
    await invoke(async () => {
      const put = (TableName: string) => ({ Put: { TableName, Item: { PK: { S: 'a' }, SK: { S: 'b' } } } });
      await client.send(new TransactWriteItemsCommand({ TransactItems: [put(table), put('other-table')] }));
    });
    const spans = await arrived(2);
    const call = spans.find((span) => span.awsOperation === 'TransactWriteItems');
    expect(call).toMatchObject({
      failed: true,
      attributes: { 'aws.dynamodb.table_names': [table, 'other-table'] },
    });
    expect(spans.find((span) => span.parentId === FUNCTION_SEGMENT)).toMatchObject({
      name: 'order',
      failed: true,
    });
  });

  it('sends a call made outside any handler span at once, under the function segment', async () => {
    activeTracing(true, `udp:127.0.0.1:${(endpoint.address() as AddressInfo).port} tcp:127.0.0.1:2000`);
    await tracedClient().send(
      new GetItemCommand({ TableName: table, Key: { PK: { S: 'x' }, SK: { S: 'x' } } }),
    );
    const [span] = await arrived(1);
    expect(span).toMatchObject({ traceId: TRACE_ID, parentId: FUNCTION_SEGMENT, awsOperation: 'GetItem' });
  });

  it('records nothing when the trace is not sampled, or when Lambda gives no endpoint (locally)', async () => {
    activeTracing(false);
    const client = tracedClient();
    await invoke(() =>
      client.send(new GetItemCommand({ TableName: table, Key: { PK: { S: 'x' }, SK: { S: 'x' } } })),
    );
    delete process.env.AWS_XRAY_DAEMON_ADDRESS;
    process.env._X_AMZN_TRACE_ID = `Root=${ROOT};Parent=${FUNCTION_SEGMENT};Sampled=1`;
    await invoke(() =>
      client.send(new GetItemCommand({ TableName: table, Key: { PK: { S: 'x' }, SK: { S: 'x' } } })),
    );
    await new Promise((done) => setTimeout(done, 100));
    expect(received).toEqual([]);
  });
});
