import { describe, expect, it } from 'vitest';
import { admin } from '../support/admin.ts';
import { expectError, withTestApi } from '../support/api.ts';
import { consoleKey, saveWorkflow } from '../support/console.ts';

/**
 * GET|PUT /v1/settings/{type}: the decision settings per event type, with their defaults, the
 * good-customer guard in force, validation that names the field and writes nothing, the audit log,
 * and the admin CLI's `settings` commands on the same records.
 */
describe('decision settings', () => {
  const suite = withTestApi();
  const get = async (type: string, key: string) =>
    suite.api.request('GET', `/v1/settings/${type}`, { apiKey: key });
  const put = async (type: string, body: unknown, key: string) =>
    suite.api.request('PUT', `/v1/settings/${type}`, { apiKey: key, rawBody: JSON.stringify(body) });
  const auditActions = async (key: string) =>
    (await suite.api.request('GET', '/v1/audit', { apiKey: key })).body.items as {
      action: string;
      keyName: string;
      subject: string;
      detail: string;
    }[];

  it('shows the defaults, the default guard and where it comes from', async () => {
    const key = await consoleKey(suite.merchantId, 'risk@acme.example');
    const order = await get('order', key);
    expect(order.status).toBe(200);
    expect(order.body).toMatchObject({
      eventType: 'order',
      settings: {
        grossMargin: 0.3,
        chargebackFee: 15,
        reviewCost: 5,
        reviewCapacityPerDay: 100,
        maxGoodDeclinedShare: 0.005,
        maxGoodReviewedShare: 0.02,
      },
      customized: [],
      guard: {
        declineAt: 50,
        reviewAt: 30,
        source: { declineAt: 'default', reviewAt: 'default' },
        budget: { maxGoodDeclinedShare: 0.005, maxGoodReviewedShare: 0.02 },
      },
    });
    expect(order.body.settings).toEqual(order.body.defaults);
    expect(order.body.settings).not.toHaveProperty('abusiveReturnLossShare');
    expect(order.body.guard.explanation).toContain('the default until 460 good labeled events');
    // Orders never review: no capacity to count.
    expect(order.body).not.toHaveProperty('reviews');
    const returns = await get('return', key);
    expect(returns.body.settings).toMatchObject({ abusiveReturnLossShare: 0.6, goodCustomerDeclineCost: 40 });
    expect(returns.body.reviews).toEqual({ today: 0, capacityPerDay: 100, capacityLeft: true });
    expect((await get('signup', key)).body.settings).toMatchObject({ abusiveAccountCost: 200 });
  });

  it('replaces what was set (a setting left out is its default) and audits each change', async () => {
    const key = await consoleKey(suite.merchantId, 'risk@acme.example');
    const saved = await put('order', { grossMargin: 0.25, chargebackFee: 20 }, key);
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      settings: { grossMargin: 0.25, chargebackFee: 20, reviewCost: 5 },
      customized: ['grossMargin', 'chargebackFee'],
      updatedBy: 'risk@acme.example',
    });
    expect((await get('order', key)).body).toEqual({ ...saved.body });
    const [entry] = await auditActions(key);
    expect(entry).toEqual(
      expect.objectContaining({
        action: 'settings.saved',
        keyName: 'risk@acme.example',
        subject: 'order decision settings',
        detail: 'grossMargin 0.3 -> 0.25, chargebackFee 15 -> 20',
      }),
    );

    const replaced = await put('order', { reviewCost: 3 }, key);
    expect(replaced.body.settings).toMatchObject({ grossMargin: 0.3, chargebackFee: 15, reviewCost: 3 });
    expect(replaced.body.customized).toEqual(['reviewCost']);
  });

  it.each<[string, string, Record<string, unknown>, number, string, string]>([
    ['a margin above 1', 'order', { grossMargin: 1.5 }, 422, 'unprocessable_entity', 'grossMargin'],
    ['a negative margin', 'order', { grossMargin: -0.1 }, 422, 'unprocessable_entity', 'grossMargin'],
    ['a negative fee', 'order', { chargebackFee: -1 }, 422, 'unprocessable_entity', 'chargebackFee'],
    [
      'a fee past the bound',
      'order',
      { chargebackFee: 2_000_000 },
      422,
      'unprocessable_entity',
      'chargebackFee',
    ],
    ['a review cost below 0', 'return', { reviewCost: -5 }, 422, 'unprocessable_entity', 'reviewCost'],
    [
      'a capacity that is not whole',
      'return',
      { reviewCapacityPerDay: 2.5 },
      422,
      'unprocessable_entity',
      'reviewCapacityPerDay',
    ],
    [
      'a negative capacity',
      'account',
      { reviewCapacityPerDay: -1 },
      422,
      'unprocessable_entity',
      'reviewCapacityPerDay',
    ],
    [
      'a budget share above 1',
      'signup',
      { maxGoodDeclinedShare: 2 },
      422,
      'unprocessable_entity',
      'maxGoodDeclinedShare',
    ],
    [
      'a loss share above 1',
      'return',
      { abusiveReturnLossShare: 1.2 },
      422,
      'unprocessable_entity',
      'abusiveReturnLossShare',
    ],
    [
      'a negative account cost',
      'login',
      { abusiveAccountCost: -200 },
      422,
      'unprocessable_entity',
      'abusiveAccountCost',
    ],
    [
      'a setting of another event type',
      'order',
      { abusiveAccountCost: 100 },
      422,
      'unknown_field',
      'abusiveAccountCost',
    ],
    ['no such setting', 'order', { margin: 0.3 }, 422, 'unknown_field', 'margin'],
    ['a number sent as text', 'order', { grossMargin: '0.3' }, 400, 'invalid_request', 'grossMargin'],
  ])('refuses %s naming the field, writing nothing', async (_, type, body, status, code, field) => {
    const key = await consoleKey(suite.merchantId);
    const before = (await get(type, key)).body;
    const audited = (await auditActions(key)).length;
    expectError(await put(type, body, key), status, code, field);
    expect((await get(type, key)).body).toEqual(before);
    expect(await auditActions(key)).toHaveLength(audited);
  });

  it('answers an events key 403 and an unknown type 404', async () => {
    expectError(await get('order', suite.apiKey), 403, 'forbidden');
    expectError(await put('order', { grossMargin: 0.2 }, suite.apiKey), 403, 'forbidden');
    expectError(await get('refund', await consoleKey(suite.merchantId)), 404, 'not_found');
  });

  it('keeps settings and workflow apart: saving one leaves the other', async () => {
    const key = await consoleKey(suite.merchantId);
    await put('return', { reviewCapacityPerDay: 40 }, key);
    const workflow = {
      rules: [{ name: 'big_refunds', decision: 'REVIEW', condition: 'itemValue > 500.0' }],
      defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
    };
    expect((await saveWorkflow(suite.api, key, 'return', workflow)).status).toBe(200);
    expect((await get('return', key)).body.settings.reviewCapacityPerDay).toBe(40);
    await put('return', { reviewCapacityPerDay: 50 }, key);
    const live = await suite.api.request('GET', '/v1/workflows/return', { apiKey: key });
    expect(live.body).toMatchObject({ source: 'stored', workflow: { rules: workflow.rules } });
  });

  it('the admin CLI shows and sets the same settings, audited as the admin CLI', async () => {
    const key = await consoleKey(suite.merchantId);
    const args = ['--merchant', suite.merchantId, '--type', 'signup'];
    const set = await admin(
      'settings',
      'set',
      ...args,
      '--abusive-account-cost',
      '350',
      '--review-cost',
      '4',
    );
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({
      saved: true,
      settings: { abusiveAccountCost: 350, reviewCost: 4, goodCustomerDeclineCost: 40 },
    });
    // Setting one more keeps the others (the CLI changes what it is given).
    expect((await admin('settings', 'set', ...args, '--good-customer-decline-cost', '30')).code).toBe(0);
    const shown = JSON.parse((await admin('settings', 'show', ...args)).stdout);
    expect(shown.settings).toMatchObject({
      abusiveAccountCost: 350,
      reviewCost: 4,
      goodCustomerDeclineCost: 30,
    });
    expect((await get('signup', key)).body.settings).toEqual(shown.settings);
    expect((await auditActions(key))[0]).toMatchObject({
      action: 'settings.saved',
      keyName: 'admin CLI',
      detail: 'goodCustomerDeclineCost 40 -> 30',
    });

    const reset = await admin('settings', 'set', ...args, '--reset');
    expect(JSON.parse(reset.stdout).customized).toEqual([]);

    const wrongType = await admin('settings', 'set', ...args, '--gross-margin', '0.2');
    expect(wrongType.code).toBe(2);
    expect(wrongType.stderr).toContain('--gross-margin is not a setting of signup events');
    const outOfRange = await admin('settings', 'set', ...args, '--max-good-declined-share', '3');
    expect(outOfRange.code).toBe(2);
    expect(outOfRange.stderr).toContain('--max-good-declined-share');
    const notANumber = await admin('settings', 'set', ...args, '--review-cost', 'five');
    expect(notANumber.stderr).toContain('--review-cost must be a number');
    expect((await admin('settings', 'set', ...args)).stderr).toContain('nothing to set');
  });
});
