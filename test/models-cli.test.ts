import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { caughtUpLake } from '../local/lake-runner.ts';
import { admin } from './support/admin.ts';
import { newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { disputeEntry, placeOrder } from './support/commerce.ts';
import { uid } from './support/fixtures.ts';
import { runLearningLocally } from './support/learning-state-machine.ts';
import { startStepFunctionsStandIn } from './support/step-functions-stand-in.ts';
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
 * A merchant whose orders are 70-100 days old (label windows closed): good shoppers, and a ring
 * sharing one card and device across e-mails whose orders all ended in LOST chargebacks. One fresh
 * order sets training's "now".
 */
async function merchantWithRing(options: { goodShoppers: number; ringOrders: number }) {
  const { merchantId, apiKey } = await newMerchant();
  const start = Date.now() - 100 * DAY;
  const card = { BIN: '411111', last4: '4242', expiry: '01/30' };
  const device = uid('ring-device');
  const total = options.goodShoppers + options.ringOrders;
  const ring: string[] = [];
  for (let i = 0; i < total; i++) {
    const timestamp = start + Math.floor((i * 30 * DAY) / total);
    // Ring orders spread evenly through time, so the newest 40 % (the holdout) holds some too.
    const isRing = options.ringOrders > 0 && i % Math.max(1, Math.floor(total / options.ringOrders)) === 0;
    const order = await placeOrder(api, apiKey, isRing ? { timestamp, card, device } : { timestamp });
    if (isRing) ring.push(order.providerOrderId);
  }
  await placeOrder(api, apiKey, { timestamp: Date.now() - 60_000 });
  for (const orderId of ring) {
    const body = { dispute: [disputeEntry({ disputeStatus: 'LOST', timestamp: start + 40 * DAY })] };
    expect((await api.post(`/v1/order/dispute/${orderId}`, body, { apiKey })).status).toBe(200);
  }
  return { merchantId, apiKey, ring };
}

const json = (result: { stdout: string }) => JSON.parse(result.stdout);

describe('models CLI', () => {
  it('trains, lists, shadows, compares, promotes and rolls back a merchant model', async () => {
    const { merchantId, ring } = await merchantWithRing({ goodShoppers: 48, ringOrders: 12 });
    const args = ['--merchant', merchantId, '--type', 'order'];

    const trained = await admin('models', 'train', ...args);
    expect(trained.code, trained.stderr).toBe(0);
    const result = json(trained);
    expect(Object.keys(result).sort()).toEqual([
      'evaluation',
      'promoted',
      'thresholds',
      'trainedOn',
      'version',
    ]);
    expect(result.thresholds.declineAt).toBeGreaterThanOrEqual(50);
    expect(result.promoted).toBe(false);
    expect(result.trainedOn).toEqual({ events: 60, positives: ring.length });
    // The newest 40 % of the 60 settled orders, in two folds (the fresh order has no label yet).
    expect(result.evaluation.holdout.events).toBe(24);
    expect(result.evaluation.candidate.positives).toBeGreaterThan(0);
    expect(result.evaluation.candidate.rocAuc).toBeGreaterThanOrEqual(0.9);
    expect(result.evaluation.active.version).toMatch(/^order-/);
    expect(result.evaluation.candidate.calibration.length).toBeGreaterThan(0);

    let listed = json(await admin('models', 'list', ...args));
    expect(listed).toMatchObject({
      active: expect.stringMatching(/^order-/),
      activeSource: 'default',
      shadow: null,
    });
    expect(listed.versions.map((v: { version: string }) => v.version)).toEqual([result.version]);

    const shown = json(await admin('models', 'show', ...args, '--version', result.version));
    expect(shown.model.weights.cardSharedAcrossEmails).toBeGreaterThan(1);

    json(await admin('models', 'shadow', ...args, '--version', result.version));
    const compared = json(await admin('models', 'compare', ...args));
    expect(compared).toMatchObject({ shadowVersion: result.version, decisions: 61 });
    expect(compared.agreement).toBeGreaterThan(0);
    expect(compared.agreement).toBeLessThanOrEqual(1);
    expect(compared.agreeing + Object.values<number>(compared.changes).reduce((a, b) => a + b, 0)).toBe(61);

    const promoted = json(await admin('models', 'promote', ...args));
    expect(promoted).toMatchObject({ active: result.version, activeSource: 'trained', shadow: null });
    expect(json(await admin('models', 'show', ...args)).model.version).toBe(result.version);

    const rolledBack = json(await admin('models', 'rollback', ...args));
    expect(rolledBack).toMatchObject({ activeSource: 'default' });
    expect(await admin('models', 'rollback', ...args)).toMatchObject({ code: 1 });

    // Training again on the same feedback gives the same version; --promote promotes it when the rule holds.
    const again = json(await admin('models', 'train', ...args, '--promote'));
    expect(again.version).toBe(result.version);
    expect(again.promoted).toBe(again.evaluation.promotion.promotable);
    listed = json(await admin('models', 'list', ...args));
    expect(listed.versions).toHaveLength(1);
    expect(listed.active).toBe(again.promoted ? result.version : rolledBack.active);

    // A failed training (no returns to learn from) leaves every active model as it was.
    const failed = await admin('models', 'train', '--merchant', merchantId, '--type', 'return');
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stderr).error).toMatch(/no labeled return events/);
    expect(json(await admin('models', 'list', ...args)).active).toBe(listed.active);
  });

  it('against a stage, trains as one execution of the learning state machine and prints what it trained', async () => {
    const { merchantId, ring } = await merchantWithRing({ goodShoppers: 48, ringOrders: 12 });
    const lakeDir = mkdtempSync(join(tmpdir(), 'stage-lake-'));
    // The stand-in runs the synthesized learning state machine with local handlers, as the stage would.
    const stepFunctions = await startStepFunctionsStandIn(
      async (input) =>
        (await runLearningLocally(input as never, { lake: await caughtUpLake(lakeDir) })).counts,
    );
    const machine = 'arn:aws:states:us-east-1:123456789012:stateMachine:learning';
    const stage = {
      LEARNING_STATE_MACHINE_ARN: machine,
      AWS_ENDPOINT_URL_SFN: stepFunctions.endpoint,
      LEARNING_POLL_MS: '100',
    };
    const lastLine = (text: string) => text.trim().split('\n').at(-1) ?? '';
    try {
      const trained = await admin('models', 'train', '--merchant', merchantId, '--type', 'order', stage);
      expect(trained.code, trained.stderr).toBe(0);
      expect(stepFunctions.started).toEqual([
        {
          stateMachineArn: machine,
          name: expect.stringMatching(new RegExp(`^cli-${merchantId}-order-\\d+$`)),
          input: { merchantId, eventType: 'order' },
        },
      ]);
      expect(trained.stderr).toMatch(new RegExp(`training ${merchantId}/order: SUCCEEDED after \\d+ s`));
      const result = json(trained);
      expect(result.execution).toBe(
        `arn:aws:states:us-east-1:123456789012:execution:learning:${stepFunctions.started[0]!.name}`,
      );
      expect(result).toMatchObject({ promoted: false, trainedOn: { events: 60, positives: ring.length } });
      expect(result.evaluation.candidate.rocAuc).toBeGreaterThanOrEqual(0.9);
      const listed = json(await admin('models', 'list', '--merchant', merchantId, '--type', 'order'));
      expect(listed.versions.map((v: { version: string }) => v.version)).toContain(result.version);

      // What the execution could not train is the CLI's error, as locally.
      const notTrained = await admin('models', 'train', '--merchant', merchantId, '--type', 'return', stage);
      expect(notTrained.code).toBe(1);
      expect(JSON.parse(lastLine(notTrained.stderr)).error).toMatch(
        /^cannot train: .*no labeled return events/,
      );
      const bounded = await admin(
        'models',
        'train',
        '--merchant',
        merchantId,
        '--type',
        'order',
        '--max-rows',
        '10',
        stage,
      );
      expect(bounded.code).toBe(2);
      expect(bounded.stderr).toContain('--max-rows is for a local run');
      expect(stepFunctions.started).toHaveLength(2);
    } finally {
      await stepFunctions.close();
    }
  });

  it('refuses bad input with a clear message and exit 1, changing nothing', async () => {
    const { merchantId } = await merchantWithRing({ goodShoppers: 0, ringOrders: 5 });
    const onlyPositives = await admin('models', 'train', '--merchant', merchantId, '--type', 'order');
    expect(onlyPositives.code).toBe(1);
    expect(JSON.parse(onlyPositives.stderr).error).toMatch(/every one of 5 labeled order events is abusive/);

    const empty = await newMerchant();
    const noEvents = await admin('models', 'train', '--merchant', empty.merchantId, '--type', 'order');
    expect(noEvents.code).toBe(1);
    expect(JSON.parse(noEvents.stderr).error).toMatch(/has sent no events/);

    const unknownType = await admin('models', 'train', '--merchant', merchantId, '--type', 'refund');
    expect(unknownType.code).toBe(1);
    expect(JSON.parse(unknownType.stderr).error).toMatch(/unknown event type refund/);
    const unknownMerchant = await admin('models', 'train', '--merchant', 'm_nobody', '--type', 'order');
    expect(unknownMerchant.code).toBe(1);
    expect(JSON.parse(unknownMerchant.stderr).error).toBe('no merchant m_nobody');
    const unknownVersion = await admin(
      'models',
      'promote',
      '--merchant',
      merchantId,
      '--type',
      'order',
      '--version',
      'v9',
    );
    expect(unknownVersion.code).toBe(1);

    const listed = json(await admin('models', 'list', '--merchant', merchantId, '--type', 'order'));
    expect(listed).toMatchObject({ activeSource: 'default', shadow: null, versions: [] });
  });
});
