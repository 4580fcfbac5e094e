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

interface TraceDocument {
  name: string;
  id: string;
  trace_id: string;
  parent_id?: string;
  type?: string;
  aws?: { operation?: string };
}

const TRACE_ROOT = '1-6741b2f0-5d4c3b2a1f0e9d8c7b6a5948';
const FACADE_PARENT = '53995c3f42cd8ad8';

/**
 * X-Ray in the bundle as Lambda runs it (tracing on, a trace header, a daemon address): the SDK keeps the
 * current segment in an AsyncLocalStorage stand-in for cls-hooked (lib/lambda-bundle.ts), so every
 * DynamoDB call of the order must reach the daemon as a subsegment of the handler's, in the
 * invocation's trace. A lost context would drop them (and, with RUNTIME_ERROR, fail the call).
 */
describe('the bundled order function, traced', () => {
  it('sends the handler subsegment and one subsegment per DynamoDB call, each under the handler, to the X-Ray daemon', async () => {
    const asset = await buildLambdaAsset('functions/order.ts', mkdtempSync(join(tmpdir(), 'trace-test-')));
    const merchant = await newMerchant();
    const body = orderBody();
    const eventFile = join(dirname(asset.index), 'event.json');
    writeFileSync(eventFile, JSON.stringify(jsonPostEvent('/v1/order', body, merchant.apiKey)));

    const daemon = createSocket('udp4');
    const documents: TraceDocument[] = [];
    daemon.on('message', (message) => {
      const [, json] = message.toString('utf8').split('\n');
      if (json) documents.push(JSON.parse(json) as TraceDocument);
    });
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
            AWS_XRAY_CONTEXT_MISSING: 'RUNTIME_ERROR',
            POWERTOOLS_TRACE_ENABLED: 'true',
            POWERTOOLS_DEV: 'false',
          },
        },
      );
      const result = JSON.parse(stdout) as { statusCode: number; body: string };
      expect(result.statusCode).toBe(200);
      expect(JSON.parse(result.body)).toMatchObject({ providerOrderID: body.providerOrderId });

      // Subsegments are sent as they close; the last (the handler's) may still be in flight.
      for (let i = 0; i < 50 && !documents.some((d) => d.name === '## index.handler'); i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      daemon.close();
    }

    const handler = documents.find((d) => d.name === '## index.handler');
    expect(handler).toMatchObject({ trace_id: TRACE_ROOT, parent_id: FACADE_PARENT, type: 'subsegment' });
    const dynamoDbCalls = documents.filter((d) => d.name === 'DynamoDB');
    expect(dynamoDbCalls.map((d) => d.aws?.operation)).toEqual(
      expect.arrayContaining(['BatchGetItem', 'TransactWriteItems']),
    );
    for (const call of dynamoDbCalls)
      expect(call).toMatchObject({ trace_id: TRACE_ROOT, parent_id: handler!.id });
  });
});
