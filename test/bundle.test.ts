import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { lambdaBuildOptions } from '../lib/api-function.ts';
import { lambdaContext, toApiGatewayEvent } from '../local/api-gateway-event.ts';
import { newMerchant } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';

/**
 * The Lambda bundles swap packages for stand-ins (lib/api-function.ts BUNDLE_ALIASES) that the
 * unbundled code every other test runs never meets: the bundled order function itself must answer.
 */
describe('the bundled order function', () => {
  it('built with the CDK esbuild settings and aliases, answers an order against DynamoDB Local', async () => {
    const outfile = join(mkdtempSync(join(tmpdir(), 'bundle-test-')), 'order.mjs');
    await build(lambdaBuildOptions('functions/order.ts', outfile));
    const { handler } = (await import(outfile)) as {
      handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>;
    };
    const { apiKey } = await newMerchant();
    const body = orderBody();
    const event = toApiGatewayEvent(
      {
        method: 'POST',
        url: '/v1/order',
        headers: { 'content-type': 'application/json', authorization: apiKey },
        body: Buffer.from(JSON.stringify(body)),
        sourceIp: '127.0.0.1',
      },
      '/v1/order',
      null,
    );
    const result = await handler(event, lambdaContext('order'));
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ providerOrderID: body.providerOrderId });
  });
});
