import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../functions/train-models.ts';
import { EVENT_TYPES } from '../shared/contract/endpoints.ts';
import { listMerchantIds } from '../shared/store/merchants.ts';
import { getModelPointers } from '../shared/store/model-versions.ts';
import { admin } from './support/admin.ts';
import { newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { disputeEntry, placeOrder } from './support/commerce.ts';
import { uid } from './support/fixtures.ts';

const DAY = 86_400_000;
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/**
 * Orders 70-100 days old, every other one from a ring sharing a card and device whose orders were
 * all charged back (LOST), so the newest 20 % (the holdout) holds enough abusive orders to judge.
 */
async function merchantWithRing() {
  const { merchantId, apiKey } = await newMerchant();
  const start = Date.now() - 100 * DAY;
  const card = { BIN: '411111', last4: '4242', expiry: '01/30' };
  const device = uid('ring-device');
  const ring: string[] = [];
  for (let i = 0; i < 100; i++) {
    const timestamp = start + Math.floor((i * 30 * DAY) / 100);
    const order = await placeOrder(api, apiKey, i % 2 === 0 ? { timestamp, card, device } : { timestamp });
    if (i % 2 === 0) ring.push(order.providerOrderId);
  }
  await placeOrder(api, apiKey, { timestamp: Date.now() - 60_000 });
  for (const orderId of ring) {
    const body = { dispute: [disputeEntry({ disputeStatus: 'LOST', timestamp: start + 40 * DAY })] };
    expect((await api.post(`/v1/order/dispute/${orderId}`, body, { apiKey })).status).toBe(200);
  }
  return merchantId;
}

describe('training function (functions/train-models.ts)', () => {
  it('trains on demand; promotes only under the merchant auto-promotion setting and the rule', async () => {
    const merchantId = await merchantWithRing();
    expect(await listMerchantIds()).toContain(merchantId);

    const manual = await handler({ merchantId, eventType: 'order' });
    expect(manual).toMatchObject({ trained: 1, promoted: 0, failed: 0 });
    expect(manual.results[0]).toMatchObject({
      merchantId,
      eventType: 'order',
      outcome: 'trained',
      promoted: false,
    });
    expect((await getModelPointers(merchantId, 'order')).active).toBeUndefined();

    const turnedOn = await admin('merchant', 'update', '--merchant', merchantId, '--auto-promote-models');
    expect(turnedOn.code, turnedOn.stderr).toBe(0);
    expect(JSON.parse(turnedOn.stdout)).toMatchObject({ merchantId, autoPromoteModels: true });

    const automatic = await handler({ merchantId });
    // Every event type is tried; those without labels are reported, not failed.
    expect(automatic.results.map((r) => r.eventType)).toEqual([...EVENT_TYPES]);
    expect(automatic.results.find((r) => r.eventType === 'order')).toMatchObject({
      outcome: 'trained',
      promoted: true,
      version: manual.results[0]!.version,
    });
    for (const result of automatic.results.filter((r) => r.eventType !== 'order')) {
      expect(result.outcome, result.eventType).toBe('not_trained');
      expect((await getModelPointers(merchantId, result.eventType)).active).toBeUndefined();
    }
    expect((await getModelPointers(merchantId, 'order')).active?.version).toBe(manual.results[0]!.version);

    const turnedOff = await admin('merchant', 'update', '--merchant', merchantId, '--no-auto-promote-models');
    expect(JSON.parse(turnedOff.stdout)).toMatchObject({ autoPromoteModels: false });
  });

  it('refuses bad input and unknown merchants, changing nothing', async () => {
    await expect(handler({ merchantId: 'm_1', extra: true })).rejects.toThrow(/extra/);
    await expect(handler({ eventType: 'refund' })).rejects.toThrow();
    await expect(handler({ merchantId: uid('m') })).rejects.toThrow(/no merchant/);
    const both = await admin(
      'merchant',
      'update',
      '--merchant',
      'm_1',
      '--auto-promote-models',
      '--no-auto-promote-models',
    );
    expect(both.code).toBe(2);
  });

  it('reports a merchant without labels as not trained, without failing the run', async () => {
    const { merchantId } = await newMerchant();
    const summary = await handler({ merchantId, promote: true });
    expect(summary).toMatchObject({ trained: 0, promoted: 0, notTrained: EVENT_TYPES.length, failed: 0 });
    expect(summary.results[0]!.reasons?.[0]).toMatch(/no events to learn from/);
  });
});
