import { mkdtempSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLambdaAsset } from '../lib/lambda-bundle.ts';
import { lambdaContext } from '../local/api-gateway-event.ts';
import { ENDPOINT_DOCS } from '../shared/contract/endpoint-docs.ts';
import { ERROR_CONDITIONS } from '../shared/contract/error-conditions.ts';
import { MANAGEMENT_ENDPOINT_DEFINITIONS } from '../shared/contract/management-endpoints.ts';
import { documentedVariables } from '../shared/scoring/variable-meanings.ts';
import { validateWorkflow } from '../shared/scoring/workflow-validation.ts';
import { saveWorkflow } from '../shared/store/workflows.ts';
import { newMerchant } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';
import { jsonPostEvent } from './support/lambda-events.ts';

type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number; body: string }>;

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
    const answered = await handler(jsonPostEvent('/v1/order', first, plain.apiKey), lambdaContext('order'));
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
    const declined = await handler(jsonPostEvent('/v1/order', body, merchant.apiKey), lambdaContext('order'));
    expect(declined.statusCode).toBe(200);
    expect(declined.body).toContain('"subDecision":"listed_currency"');
    expect(declined.body).toContain('"decision":"DECLINE"');
  });
});

/**
 * Documentation no request needs (endpoint-docs.ts, error-conditions.ts, variable-meanings.ts) and the
 * console's definitions (management-endpoints.ts) stay out of an event function's bundle: the registry
 * and the variable catalog it loads keep only what requests run on.
 */
describe('the order function bundle', () => {
  it('carries no endpoint description, error condition, variable meaning or console route', async () => {
    const asset = await buildLambdaAsset('functions/order.ts', mkdtempSync(join(tmpdir(), 'bundle-docs-')));
    const bundled = `${readFileSync(asset.index, 'utf8')}${readFileSync(asset.celChunk, 'utf8')}`;
    // Texts esbuild keeps byte for byte: ASCII with at most one kind of quote (it escapes the others).
    const prose = [
      ...Object.values(ENDPOINT_DOCS).map((docs) => docs.description),
      ...Object.values(ERROR_CONDITIONS),
      ...documentedVariables('order').map((variable) => variable.meaning),
    ].filter((text) => /^[\x20-\x7E]{30,}$/.test(text) && !(text.includes('"') && text.includes("'")));
    expect(prose.length).toBeGreaterThan(40);
    expect(prose.filter((text) => bundled.includes(text))).toEqual([]);
    for (const definition of Object.values(MANAGEMENT_ENDPOINT_DEFINITIONS)) {
      expect(bundled).not.toContain(`"${definition.path}"`);
    }
  });
});
