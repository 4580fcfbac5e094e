import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, jsonFile } from './support/admin.ts';
import { type ApiResponse, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const decisionOf = (response: ApiResponse) => response.body.cartLevelDecisions[0].decisions[0];
const approveByDefault = { name: 'default_approve', decision: 'APPROVE' };
const declineEverything = {
  rules: [{ name: 'decline_everything', decision: 'DECLINE', condition: 'abuseScore >= 0' }],
  defaultBranch: approveByDefault,
};

describe('workflows set/get through the CLI change live decisions', () => {
  it('an order workflow set through the CLI decides the next order, with the rule name as subDecision', async () => {
    const merchant = await newMerchant();
    const before = decisionOf(await api.post('/v1/order', orderBody(), { apiKey: merchant.apiKey }));
    expect(before).toMatchObject({ decision: 'APPROVE', subDecision: 'default_approve' });

    const shown = await admin('workflows', 'get', '--merchant', merchant.merchantId, '--type', 'order');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      source: 'default',
      decisionType: 'APPROVE/DECLINE',
      workflow: {
        rules: [{ name: 'high_abuse_score', condition: 'abuseScore >= modelDeclineAt', decision: 'DECLINE' }],
      },
    });

    const set = await admin(
      'workflows',
      'set',
      '--merchant',
      merchant.merchantId,
      '--type',
      'order',
      '--file',
      await jsonFile(declineEverything),
    );
    expect(set.code, set.stderr).toBe(0);
    const saved = JSON.parse(set.stdout);
    expect(saved).toMatchObject({ saved: true, eventType: 'order', rules: ['decline_everything'] });
    expect(saved.version).toMatch(/^wf_\d{13}_[0-9a-z]{4}$/);

    const after = decisionOf(await api.post('/v1/order', orderBody(), { apiKey: merchant.apiKey }));
    expect(after).toMatchObject({
      decision: 'DECLINE',
      subDecision: 'decline_everything',
      decisionType: 'APPROVE/DECLINE',
    });

    const stored = JSON.parse(
      (await admin('workflows', 'get', '--merchant', merchant.merchantId, '--type', 'order')).stdout,
    );
    expect(stored).toMatchObject({
      source: 'stored',
      workflow: { version: saved.version, ...declineEverything },
    });
  });

  it('the decision keeps the workflow version and the event fields the conditions saw', async () => {
    const merchant = await newMerchant();
    const body = orderBody({
      items: [
        { sku: 'a', quantity: 2 },
        { sku: 'b', quantity: 3 },
      ],
      amount: '120.00',
    });
    await api.post('/v1/order', body, { apiKey: merchant.apiKey });
    const { getOrder } = await import('../shared/store/orders.ts');
    const order = await getOrder(merchant.merchantId, body.providerOrderId);
    expect(order?.decision).toMatchObject({
      workflowVersion: 'default-order-2',
      fields: { orderValue: 120, lineItemCount: 2, unitCount: 5, currencyCode: '840', orderState: 'PAID' },
    });
  });
});

describe('invalid workflows are refused with a precise message (exit 1), and nothing is stored', () => {
  const cases: [string, unknown, string][] = [
    [
      'unknown variable',
      {
        rules: [{ name: 'typo', decision: 'DECLINE', condition: 'abuseScor >= 80' }],
        defaultBranch: approveByDefault,
      },
      'rule "typo" (#1): unknown variable "abuseScor"',
    ],
    [
      'REVIEW on orders',
      {
        rules: [{ name: 'hold', decision: 'REVIEW', condition: 'abuseScore >= 60' }],
        defaultBranch: approveByDefault,
      },
      'rule "hold" (#1): decision REVIEW is not possible for order workflows (orders never REVIEW)',
    ],
    [
      'unreachable rule',
      {
        rules: [
          { name: 'over_70', decision: 'DECLINE', condition: 'abuseScore >= 70' },
          { name: 'over_90', decision: 'DECLINE', condition: 'abuseScore >= 90' },
        ],
        defaultBranch: approveByDefault,
      },
      'rule "over_90" (#2) is unreachable: every event matching `abuseScore >= 90` already matches rule "over_70" (#1)',
    ],
    [
      'type error',
      {
        rules: [{ name: 'high', decision: 'DECLINE', condition: 'abuseScore == "high"' }],
        defaultBranch: approveByDefault,
      },
      'rule "high" (#1): type error in condition at column 1: no such overload: int == string',
    ],
  ];

  it.each(cases)('%s', async (_label, document, message) => {
    const merchant = await newMerchant();
    const file = await jsonFile(document);
    const set = await admin(
      'workflows',
      'set',
      '--merchant',
      merchant.merchantId,
      '--type',
      'order',
      '--file',
      file,
    );
    expect(set.code).toBe(1);
    expect(JSON.parse(set.stderr).error).toContain(message);
    const { getWorkflow } = await import('../shared/store/workflows.ts');
    expect((await getWorkflow(merchant.merchantId, 'order')).source).toBe('default');
  });

  it('validate checks without storing; bad arguments are usage errors (exit 2)', async () => {
    const ok = await admin(
      'workflows',
      'validate',
      '--type',
      'return',
      '--file',
      await jsonFile(declineEverything),
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({
      valid: true,
      eventType: 'return',
      decisionType: 'APPROVE/DECLINE',
      rules: 1,
    });
    const badType = await admin('workflows', 'validate', '--type', 'refund', '--file', 'x.json');
    expect(badType.code).toBe(2);
    expect(badType.stderr).toContain('--type must be one of order, return, signup, login, account');
    const unknownMerchant = await admin(
      'workflows',
      'set',
      '--merchant',
      'mer_nobody',
      '--type',
      'order',
      '--file',
      await jsonFile(declineEverything),
    );
    expect(unknownMerchant.code).toBe(1);
    expect(JSON.parse(unknownMerchant.stderr)).toEqual({ error: 'no merchant mer_nobody' });
  });
});

describe('workflows variables', () => {
  it('lists the catalog of a type with types and meanings, signals taken from the model', async () => {
    const result = await admin('workflows', 'variables', '--type', 'order');
    expect(result.code).toBe(0);
    const { eventType, variables } = JSON.parse(result.stdout);
    expect(eventType).toBe('order');
    const byName = Object.fromEntries(variables.map((v: { name: string }) => [v.name, v]));
    expect(byName.abuseScore).toMatchObject({ type: 'int', source: 'score' });
    expect(byName.lostChargebacksOnIdentities).toMatchObject({ type: 'double', source: 'signal' });
    expect(byName.orderValue).toMatchObject({ type: 'double', source: 'field' });
    expect(byName.lineItemCount).toMatchObject({ type: 'int', source: 'field' });
    for (const variable of variables) expect(variable.meaning.length).toBeGreaterThan(10);
  });
});
