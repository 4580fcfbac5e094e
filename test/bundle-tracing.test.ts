import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { buildLambdaAsset } from '../lib/lambda-bundle.ts';
import { newMerchant } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';
import { jsonPostEvent } from './support/lambda-events.ts';
import { type SentSpan, spansOfDatagram } from './support/trace-datagrams.ts';

const TRACE_ROOT = '1-6741b2f0-5d4c3b2a1f0e9d8c7b6a5948';
const FACADE_PARENT = '53995c3f42cd8ad8';

/**
 * Tracing in the bundle as Lambda runs it (active tracing: a sampled trace header and the trace
 * endpoint's address): the handler's span and one span per DynamoDB call must reach the endpoint in
 * the invocation's trace, the handler's under the function's segment (the header's Parent) and each
 * call under the handler's (shared/tracing.ts). Lost request scope would orphan or drop them.
 */
describe('the bundled order function, traced', () => {
  it("sends the handler's span and one span per DynamoDB call, each under the handler's, to Lambda's trace endpoint", async () => {
    const asset = await buildLambdaAsset('functions/order.ts', mkdtempSync(join(tmpdir(), 'trace-test-')));
    const merchant = await newMerchant();
    const body = orderBody();
    const eventFile = join(dirname(asset.index), 'event.json');
    writeFileSync(eventFile, JSON.stringify(jsonPostEvent('/v1/order', body, merchant.apiKey)));

    const daemon = createSocket('udp4');
    const spans: SentSpan[] = [];
    daemon.on('message', (message) => spans.push(...spansOfDatagram(message)));
    await new Promise<void>((resolve) => daemon.bind(0, '127.0.0.1', resolve));
    const daemonAddress = `127.0.0.1:${(daemon.address() as AddressInfo).port}`;
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        ['test/support/invoke-bundle.ts', asset.index, eventFile],
        {
          env: {
            ...process.env,
            LAMBDA_TASK_ROOT: dirname(asset.index),
            AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
            AWS_LAMBDA_FUNCTION_NAME: 'order',
            _HANDLER: 'index.handler',
            _X_AMZN_TRACE_ID: `Root=${TRACE_ROOT};Parent=${FACADE_PARENT};Sampled=1`,
            AWS_XRAY_DAEMON_ADDRESS: daemonAddress,
            POWERTOOLS_DEV: 'false',
          },
        },
      );
      const result = JSON.parse(stdout) as { statusCode: number; body: string };
      expect(result.statusCode).toBe(200);
      expect(JSON.parse(result.body)).toMatchObject({ providerOrderID: body.providerOrderId });

      // Sent as the invocation ends; the datagram may still be in flight.
      for (let i = 0; i < 50 && spans.length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      daemon.close();
    }

    const traceId = TRACE_ROOT.slice(2).replace('-', '');
    const handler = spans.find((span) => span.awsService === undefined);
    expect(handler).toMatchObject({ traceId, parentId: FACADE_PARENT, name: 'order' });
    expect(handler?.attributes).toMatchObject({ 'faas.coldstart': true, 'faas.trigger': 'http' });
    const dynamoDbCalls = spans.filter((span) => span.awsService === 'DynamoDB');
    expect(dynamoDbCalls.map((span) => span.awsOperation)).toEqual(
      expect.arrayContaining(['BatchGetItem', 'UpdateItem', 'TransactWriteItems']),
    );
    for (const call of dynamoDbCalls) {
      expect(call).toMatchObject({ traceId, parentId: handler!.spanId });
      expect(call.attributes['aws.dynamodb.table_names']).toEqual([process.env.TABLE_NAME]);
    }
    expect(spans).toHaveLength(dynamoDbCalls.length + 1);
  });
});
