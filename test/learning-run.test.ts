import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import validateAsl from 'asl-validator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as listItems } from '../functions/learning-items.ts';
import { LEARNING_STATES } from '../lib/learning-stack.ts';
import { caughtUpLake } from '../local/lake-runner.ts';
import { EVENT_TYPES } from '../shared/contract/endpoints.ts';
import { OVERVIEW_LIMITS } from '../shared/schemas/console.ts';
import { getModelPointers } from '../shared/store/model-versions.ts';
import { listOverviewRollups } from '../shared/store/overview-rollups.ts';
import { admin } from './support/admin.ts';
import { newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { disputeEntry, placeOrder } from './support/commerce.ts';
import { uid } from './support/fixtures.ts';
import { runLearningLocally, synthesizedLearningDefinition } from './support/learning-state-machine.ts';
import { createOwnTable } from './support/table-snapshot.ts';

const DAY = 86_400_000;
let api: TestApi;

// A table of its own: training first catches its lake up with the table's whole stream, which then
// holds this suite's writes alone.
vi.hoisted(() => {
  process.env.TABLE_NAME = `learning-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});
beforeAll(async () => {
  await createOwnTable({ stream: true });
  api = await startTestApi();
});
afterAll(() => api.close());

/**
 * Orders 70-100 days old, every other one from a ring sharing a card and device whose orders were
 * all charged back (LOST), so the newest 20 % (the holdout) holds enough abusive orders to judge.
 */
const placedAt: number[] = [];
async function merchantWithRing() {
  const { merchantId, apiKey } = await newMerchant();
  const start = Date.now() - 100 * DAY;
  const card = { BIN: '411111', last4: '4242', expiry: '01/30' };
  const device = uid('ring-device');
  const ring: string[] = [];
  for (let i = 0; i < 100; i++) {
    const timestamp = start + Math.floor((i * 30 * DAY) / 100);
    placedAt.push(timestamp);
    const order = await placeOrder(api, apiKey, i % 2 === 0 ? { timestamp, card, device } : { timestamp });
    if (i % 2 === 0) ring.push(order.providerOrderId);
  }
  placedAt.push(Date.now() - 60_000);
  await placeOrder(api, apiKey, { timestamp: placedAt.at(-1)! });
  for (const orderId of ring) {
    const body = { dispute: [disputeEntry({ disputeStatus: 'LOST', timestamp: start + 40 * DAY })] };
    expect((await api.post(`/v1/order/dispute/${orderId}`, body, { apiKey })).status).toBe(200);
  }
  return merchantId;
}

/** The run's lake, caught up with the table's stream before each run, as `npm start` keeps it. */
const lakeDir = mkdtempSync(join(tmpdir(), 'learning-lake-'));
const run = async (
  request: Parameters<typeof runLearningLocally>[0],
  fail?: (item: { eventType: string }) => boolean,
) => runLearningLocally(request, { lake: await caughtUpLake(lakeDir), ...(fail ? { fail } : {}) });

type Json = Record<string, unknown>;

describe('the learning state machine (lib/learning-stack.ts)', () => {
  it('is valid Amazon States Language: a Distributed Map over items in S3, each step retried and caught', () => {
    const definition = synthesizedLearningDefinition() as { States: Record<string, Json> };
    const checked = validateAsl(definition, { checkArn: true, checkPaths: true });
    expect(checked.errors).toEqual([]);
    expect(checked.isValid).toBe(true);
    const map = definition.States[LEARNING_STATES.eachItem]!;
    expect(map).toMatchObject({
      Type: 'Map',
      ToleratedFailurePercentage: 100,
      ItemReader: { Resource: 'arn:aws:states:::s3:getObject', ReaderConfig: { InputType: 'JSON' } },
      ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED' } },
    });
    expect(map.ResultWriter).toBeDefined();
    const steps = (map.ItemProcessor as { States: Record<string, Json> }).States;
    for (const step of [LEARNING_STATES.trainingSet, LEARNING_STATES.fit]) {
      expect(steps[step]!.Retry).toEqual(
        expect.arrayContaining([expect.objectContaining({ MaxAttempts: 2 })]),
      );
      expect(steps[step]!.Catch).toEqual([expect.objectContaining({ Next: LEARNING_STATES.itemFailed })]);
    }
  });

  it('trains on demand; promotes only under the merchant auto-promotion setting and the rule', async () => {
    const merchantId = await merchantWithRing();

    const manual = await run({ merchantId, eventType: 'order' });
    expect(manual.counts).toMatchObject({ items: 1, trained: 1, promoted: 0, failed: 0 });
    expect(manual.results[0]).toMatchObject({
      merchantId,
      eventType: 'order',
      outcome: 'trained',
      promoted: false,
    });
    expect((await getModelPointers(merchantId, 'order')).active).toBeUndefined();
    // The same item counted the overview's days: its orders of the last 90 days, today's included.
    const day = (at: number) => new Date(at).toISOString().slice(0, 10);
    const from = day(Date.now() - OVERVIEW_LIMITS.days * DAY);
    const rollups = await listOverviewRollups(merchantId, 'order', from, day(Date.now()));
    const counted = rollups.flatMap((r) => r.cells).reduce((n, cell) => n + cell[3], 0);
    expect(counted).toBe(placedAt.filter((at) => day(at) >= from).length);
    expect(counted).toBeGreaterThan(50);
    expect(rollups.flatMap((r) => r.cells).every(([, , branch]) => branch.length > 0)).toBe(true);

    const turnedOn = await admin('merchant', 'update', '--merchant', merchantId, '--auto-promote-models');
    expect(turnedOn.code, turnedOn.stderr).toBe(0);

    const automatic = await run({ merchantId });
    const version = (manual.results[0] as { version: string }).version;
    // Every event type is an item; those without labels are reported, not failed.
    expect(automatic.results.map((r) => r.eventType)).toEqual([...EVENT_TYPES]);
    expect(automatic.results.find((r) => r.eventType === 'order')).toMatchObject({
      outcome: 'trained',
      promoted: true,
      version,
    });
    expect(automatic.counts).toMatchObject({ trained: 1, notTrained: EVENT_TYPES.length - 1, failed: 0 });
    expect((await getModelPointers(merchantId, 'order')).active?.version).toBe(version);

    const turnedOff = await admin('merchant', 'update', '--merchant', merchantId, '--no-auto-promote-models');
    expect(JSON.parse(turnedOff.stdout)).toMatchObject({ autoPromoteModels: false });
  });

  it('retries a failing item, then counts it failed without stopping the others', async () => {
    const merchantId = await merchantWithRing();
    const failing = await run({ merchantId, promote: false }, (item) => item.eventType === 'order');
    expect(failing.counts).toMatchObject({ items: EVENT_TYPES.length, failed: 1, trained: 0, notTrained: 4 });
    expect(failing.results[0]).toMatchObject({ merchantId, eventType: 'order', failed: true });
    // The first attempt and the two retries of the Fit step; its training set was read once.
    expect(failing.attempts[`fit:${merchantId}/order`]).toBe(3);
    expect(failing.attempts[`set:${merchantId}/order`]).toBe(1);
    expect(failing.attempts[`fit:${merchantId}/return`]).toBe(1);
  });

  it('refuses bad input and unknown merchants, changing nothing', async () => {
    await expect(listItems({ runId: 'r', request: { merchantId: 'm_1', extra: true } })).rejects.toThrow(
      /extra/,
    );
    await expect(listItems({ runId: 'r', request: { eventType: 'refund' } })).rejects.toThrow();
    await expect(listItems({ runId: 'r', request: { merchantId: uid('m') } })).rejects.toThrow(/no merchant/);
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
    const summary = await run({ merchantId, promote: true });
    expect(summary.counts).toMatchObject({
      trained: 0,
      promoted: 0,
      notTrained: EVENT_TYPES.length,
      failed: 0,
    });
    expect((summary.results[0] as { reasons: string[] }).reasons[0]).toMatch(/no events to learn from/);
  });
});
