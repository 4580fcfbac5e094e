import { mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLambdaAsset } from '../lib/lambda-bundle.ts';
import { lambdaContext, toApiGatewayEvent } from '../local/api-gateway-event.ts';
import { validateWorkflow } from '../shared/scoring/workflow-validation.ts';
import { saveWorkflow } from '../shared/store/workflows.ts';
import { newMerchant } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>;

function orderEvent(apiKey: string, body: ReturnType<typeof orderBody>) {
  return toApiGatewayEvent(
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
}

/**
 * The Lambda bundles swap packages for stand-ins (lib/lambda-bundle.ts BUNDLE_ALIASES) and load cel-js
 * from a chunk beside index.mjs, which the unbundled code every other test runs never meets: the
 * bundled order function itself must answer, with a default workflow and with a merchant's.
 */
describe('the bundled order function', () => {
  it('built like the CDK builds it, answers orders against DynamoDB Local, loading cel-js only when a condition needs it', async () => {
    const asset = await buildLambdaAsset('functions/order.ts', mkdtempSync(join(tmpdir(), 'bundle-test-')));
    const { handler } = (await import(asset.index)) as { handler: Handler };

    // A default workflow never reaches for the chunk: it answers with the chunk gone.
    renameSync(asset.celChunk, `${asset.celChunk}.away`);
    const plain = await newMerchant();
    const first = orderBody();
    const answered = await handler(orderEvent(plain.apiKey, first), lambdaContext('order'));
    expect(answered.statusCode).toBe(200);
    expect(JSON.parse(answered.body)).toMatchObject({ providerOrderID: first.providerOrderId });
    renameSync(`${asset.celChunk}.away`, asset.celChunk);

    // `in` and a list are outside the simple subset: this merchant's rule runs on cel-js, from the chunk.
    const merchant = await newMerchant();
    const checked = validateWorkflow(
      'order',
      {
        rules: [
          { name: 'listed_currency', decision: 'DECLINE', condition: 'currencyCode in ["840", "978"]' },
        ],
        defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
      },
      'wf_bundle_test',
    );
    if (!checked.valid) throw new Error(checked.errors.join('; '));
    await saveWorkflow(merchant.merchantId, checked.workflow, Date.now());
    const body = orderBody();
    const declined = await handler(orderEvent(merchant.apiKey, body), lambdaContext('order'));
    expect(declined.statusCode).toBe(200);
    expect(declined.body).toContain('"subDecision":"listed_currency"');
    expect(declined.body).toContain('"decision":"DECLINE"');
  });
});
