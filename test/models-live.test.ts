import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelVersion } from '../shared/learning/train.ts';
import { modelFor } from '../shared/scoring/models.ts';
import type { SignupRecord } from '../shared/store/account-events.ts';
import { keys } from '../shared/store/keys.ts';
import { saveModelVersion } from '../shared/store/model-versions.ts';
import { getOrder } from '../shared/store/orders.ts';
import { getRecord } from '../shared/store/record-once.ts';
import { signupBody } from './support/account-fixtures.ts';
import { admin } from './support/admin.ts';
import { newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const figures = {
  events: 0,
  positives: 0,
  rocAuc: null,
  prAuc: null,
  thresholds: [],
  calibration: [],
  calibrationError: 0,
};

/** A stored version that scores every order 100, so its effect on a decision cannot be missed. */
function decliningVersion(merchantId: string): ModelVersion {
  return scoringVersion(merchantId, 'declines-all', 10, { declineAt: 85, reviewAt: 85 });
}

/** A version scoring every order `sigmoid(bias)`, deciding with the given thresholds. */
function scoringVersion(
  merchantId: string,
  name: string,
  bias: number,
  thresholds: ModelVersion['thresholds'],
): ModelVersion {
  return {
    eventType: 'order',
    version: `order-${merchantId}-${name}`,
    bias,
    weights: {},
    thresholds,
    merchantId,
    basedOn: modelFor('order').version,
    trainedAt: new Date().toISOString(),
    trainedOn: { events: 0, positives: 0 },
    negativeSamplingRate: 1,
    evaluation: {
      holdout: { from: null, events: 0, positives: 0 },
      candidate: figures,
      active: { version: modelFor('order').version, ...figures },
      censoredDeclines: { events: 0, stillDeclined: 0 },
      promotion: { promotable: false, reasons: ['test version'] },
    },
  };
}

/** Places an order; its wire decision and the decision stored with it. */
async function placeOrder(merchantId: string, apiKey: string) {
  const body = orderBody();
  const response = await api.post('/v1/order', body, { apiKey });
  expect(response.status).toBe(200);
  const stored = await getOrder(merchantId, body.providerOrderId);
  return { wire: response.body.cartLevelDecisions[0].decisions[0], stored: stored!.decision };
}

describe('merchant models in live scoring', () => {
  it('shadow is stored beside live decisions; promote and rollback change live decisions, nothing else', async () => {
    const { merchantId, apiKey } = await newMerchant();
    const version = decliningVersion(merchantId);
    await saveModelVersion(version);
    const args = ['--merchant', merchantId, '--type', 'order'];
    const order = () => placeOrder(merchantId, apiKey);

    const before = await order();
    expect(before.wire.decision).toBe('APPROVE');
    expect(before.stored.modelVersion).toBe(modelFor('order').version);
    expect(before.stored.shadow).toBeUndefined();

    expect((await admin('models', 'shadow', ...args, '--version', version.version)).code).toBe(0);
    const shadowed = await order();
    expect(shadowed.wire).toEqual(before.wire);
    expect(shadowed.wire).not.toHaveProperty('shadow');
    expect(shadowed.stored.shadow).toEqual({
      modelVersion: version.version,
      abuseScore: 100,
      decision: 'DECLINE',
      subDecision: 'high_abuse_score',
    });
    const compared = JSON.parse((await admin('models', 'compare', ...args)).stdout);
    expect(compared).toMatchObject({ decisions: 2, storedShadowDecisions: 1, agreeing: 0, agreement: 0 });
    expect(compared.changes).toEqual({ 'APPROVE -> DECLINE': 2 });

    expect((await admin('models', 'promote', ...args)).code).toBe(0);
    const promoted = await order();
    expect(promoted.wire).toMatchObject({
      decision: 'DECLINE',
      subDecision: 'high_abuse_score',
      abuseScore: 100,
    });
    expect(promoted.stored.modelVersion).toBe(version.version);
    // Other event types keep their own (default) model.
    const signup = signupBody();
    expect((await api.post('/v1/evaluate/signup', signup, { apiKey })).status).toBe(200);
    expect(
      (await getRecord<SignupRecord>(keys.signup(merchantId, signup.customerId)))?.decision.modelVersion,
    ).toBe(modelFor('signup').version);

    expect((await admin('models', 'rollback', ...args)).code).toBe(0);
    const rolledBack = await order();
    expect(rolledBack.wire.decision).toBe('APPROVE');
    expect(rolledBack.stored.modelVersion).toBe(modelFor('order').version);
  });
});

describe("a promoted version's thresholds in live decisions", () => {
  it('the default order workflow declines at the live version its own modelDeclineAt', async () => {
    const { merchantId, apiKey } = await newMerchant();
    // Both versions score every order 60 (log-odds ln 1.5): under the default model's 85, approved.
    const strict = scoringVersion(merchantId, 'declines-at-65', Math.log(1.5), {
      declineAt: 65,
      reviewAt: 65,
    });
    const lenient = scoringVersion(merchantId, 'declines-at-55', Math.log(1.5), {
      declineAt: 55,
      reviewAt: 55,
    });
    await saveModelVersion(strict);
    await saveModelVersion(lenient);
    const args = ['--merchant', merchantId, '--type', 'order'];
    const decide = () => placeOrder(merchantId, apiKey);

    expect((await admin('models', 'promote', ...args, '--version', strict.version)).code).toBe(0);
    const underStrict = await decide();
    expect(underStrict.wire).toMatchObject({ decision: 'APPROVE', abuseScore: 60 });
    expect(underStrict.stored.modelThresholds).toEqual({ declineAt: 65, reviewAt: 65 });

    expect((await admin('models', 'promote', ...args, '--version', lenient.version)).code).toBe(0);
    const underLenient = await decide();
    expect(underLenient.wire).toMatchObject({
      decision: 'DECLINE',
      subDecision: 'high_abuse_score',
      abuseScore: 60,
    });
    expect(underLenient.stored).toMatchObject({
      modelVersion: lenient.version,
      modelThresholds: { declineAt: 55, reviewAt: 55 },
    });
  });
});
