import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { METRIC } from '../../shared/identity/metrics.ts';
import { decide } from '../../shared/scoring/decide.ts';
import { type ScoringModel, scoreWithModel, toAbuseScore } from '../../shared/scoring/model.ts';
import { modelFor } from '../../shared/scoring/models.ts';
import { orderSignals } from '../../shared/scoring/signals/order-signals.ts';
import type { Signals } from '../../shared/scoring/signals/signal.ts';
import { DEFAULT_WORKFLOWS, type Workflow } from '../../shared/scoring/workflow.ts';
import { loadWorkflow } from '../../shared/scoring/workflow-engine.ts';
import { countIn, fakeSnapshot, orderHistoryOf } from './snapshots.ts';

const model: ScoringModel = {
  eventType: 'order',
  version: 'test-1',
  bias: -2,
  weights: { strong: 2, medium: 1, fair: 0.5, weak: 0.2, mitigating: -1 },
};

describe('toAbuseScore', () => {
  it.each([
    [0, 50],
    [-Infinity, 0],
    [Infinity, 100],
    [Math.log(3), 75],
    [-Math.log(3), 25],
    [-10, 0],
    [10, 100],
    [-4.6, 1],
  ])('log-odds %d -> %d', (logOdds, score) => {
    expect(toAbuseScore(logOdds)).toBe(score);
  });
});

describe('scoreWithModel', () => {
  it.each<[string, Record<string, number>, number, string[]]>([
    ['only the bias', {}, toAbuseScore(-2), []],
    ['one strong signal', { strong: 1 }, toAbuseScore(0), ['strong']],
    [
      'contributions sorted largest first',
      { weak: 1, strong: 1, medium: 1 },
      toAbuseScore(1.2),
      ['strong', 'medium', 'weak'],
    ],
    [
      'a mitigating signal lowers the score and sorts last',
      { medium: 1, mitigating: 1 },
      toAbuseScore(-2),
      ['medium', 'mitigating'],
    ],
    ['values scale contributions', { medium: 3 }, toAbuseScore(1), ['medium']],
    ['unknown signals and zeros are ignored', { nope: 5, strong: 0 }, toAbuseScore(-2), []],
    ['non-finite values are ignored', { strong: Number.NaN, medium: Infinity }, toAbuseScore(-2), []],
    [
      'opposite overflows do not make NaN',
      { strong: 1.7e308, medium: -1.7e308 },
      toAbuseScore(-2),
      ['strong', 'medium'],
    ],
  ])('%s', (_label, signals, score, order) => {
    const scored = scoreWithModel(model, signals);
    expect(scored.abuseScore).toBe(score);
    expect(scored.modelVersion).toBe('test-1');
    expect(scored.contributions.map((c) => c.signal)).toEqual(order);
  });
});

const signal = (value: number, evidence: string) => ({ value, evidence });
const defaultOrderWorkflow = await loadWorkflow(DEFAULT_WORKFLOWS.order);
const workflow = (over: Partial<Workflow> = {}): Workflow => ({ ...DEFAULT_WORKFLOWS.order, ...over });

describe('decide: reasons, branch and recorded variables', () => {
  it.each<[string, Signals, Workflow, { decision: string; subDecision: string; reason: string }]>([
    [
      'no signals: the plain reason and the default branch',
      {},
      workflow(),
      {
        decision: 'APPROVE',
        subDecision: 'default_approve',
        reason: 'no abuse signals in the linked history',
      },
    ],
    [
      'signals below the reason threshold are not named',
      { weak: signal(1, 'weak thing') },
      workflow(),
      {
        decision: 'APPROVE',
        subDecision: 'default_approve',
        reason: 'no abuse signals in the linked history',
      },
    ],
    [
      'contributions above the threshold are named, largest first; mitigating ones never',
      {
        weak: signal(1, 'weak thing'),
        medium: signal(1, 'medium thing'),
        strong: signal(2, 'strong thing'),
        mitigating: signal(1, 'vouched'),
      },
      workflow(),
      { decision: 'DECLINE', subDecision: 'high_abuse_score', reason: 'strong thing; medium thing' },
    ],
    [
      'at most three reasons, ties by name',
      {
        fair: signal(1, 'fair thing'),
        weak: signal(5, 'weak thing'),
        medium: signal(1, 'medium thing'),
        strong: signal(1, 'strong thing'),
      },
      workflow(),
      {
        decision: 'DECLINE',
        subDecision: 'high_abuse_score',
        reason: 'strong thing; medium thing; weak thing',
      },
    ],
    [
      'the matched rule decides and its reason leads',
      { strong: signal(3, 'strong thing') },
      workflow({
        rules: [
          { name: 'very_strong', decision: 'DECLINE', condition: 'abuseScore >= 98', reason: 'very strong' },
        ],
      }),
      { decision: 'DECLINE', subDecision: 'very_strong', reason: 'very strong; strong thing' },
    ],
  ])('%s', async (_label, signals, wf, expected) => {
    const decision = decide(model, await loadWorkflow(wf), signals, { orderValue: 10 });
    expect(decision).toMatchObject(expected);
    expect(decision.modelVersion).toBe('test-1');
    expect(decision.workflowVersion).toBe(wf.version);
    expect(decision.decisionType).toBe('APPROVE/DECLINE');
    expect(decision.signals).toEqual(
      Object.fromEntries(Object.entries(signals).map(([k, s]) => [k, s.value])),
    );
    expect(decision.fields).toMatchObject({ orderValue: 10, lineItemCount: 0, currencyCode: '' });
  });

  it('a rule that fails to evaluate does not hold and is recorded', async () => {
    const decision = decide(
      model,
      await loadWorkflow(
        workflow({ rules: [{ name: 'broken', decision: 'DECLINE', condition: 'abuseScore / 0 > 1' }] }),
      ),
      {},
    );
    expect(decision.subDecision).toBe('default_approve');
    expect(decision.ruleErrors).toEqual([{ rule: 'broken', message: 'division by zero' }]);
  });
});

describe('score properties (fast-check)', () => {
  const order = modelFor('order');
  const names = Object.keys(order.weights);

  it('scores are integers in 0-100 for any finite signal values', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(...names),
          // Extremes often, so opposite overflows (+Infinity and -Infinity contributions) get tried.
          fc.oneof(
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.constantFrom(Number.MAX_VALUE, -Number.MAX_VALUE, Number.MIN_VALUE, -0),
          ),
        ),
        (signals) => {
          const { abuseScore } = scoreWithModel(order, signals);
          return Number.isInteger(abuseScore) && abuseScore >= 0 && abuseScore <= 100;
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('toAbuseScore is an integer in 0-100 for any log-odds', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true }), (logOdds) => {
        const score = toAbuseScore(logOdds);
        return Number.isInteger(score) && score >= 0 && score <= 100;
      }),
    );
  });

  /** An order whose identities carry arbitrary history; `extra` adds lost chargebacks / abusive returns. */
  const history = fc.record({
    chargebacks: fc.nat(50),
    abusiveReturns: fc.nat(50),
    openDisputes: fc.nat(5),
    vouched: fc.nat(5),
    ordersLastHour: fc.nat(10),
    priorOrders: fc.nat(20),
    otherEmails: fc.nat(10),
    orderValue: fc.double({ min: 0, max: 100_000, noNaN: true }),
    cvvFailed: fc.boolean(),
    on: fc.constantFrom('email', 'card', 'device', 'address'),
  });
  type History = typeof history extends fc.Arbitrary<infer T> ? T : never;

  function scoreOf(h: History): number {
    const counts = (kind: string) => ({
      [METRIC.lostChargebacks]: kind === h.on ? countIn('d30', h.chargebacks) : {},
      [METRIC.abusiveReturns]: kind === h.on ? countIn('d30', h.abusiveReturns) : {},
      [METRIC.openDisputes]: { lifetime: h.openDisputes },
      [METRIC.legitimateReviews]: countIn('d30', h.vouched),
      [METRIC.orders]: {
        ...countIn('h1', h.ordersLastHour),
        lifetime: Math.max(h.priorOrders, h.ordersLastHour),
      },
      [METRIC.orderValue]: { lifetime: h.priorOrders * 80 },
    });
    const others = Array.from({ length: h.otherEmails }, (_, i) => `other-${i}`);
    const email = fakeSnapshot('email', 'e', { counts: counts('email') });
    const card = fakeSnapshot('card', 'c', { counts: counts('card'), links: { email: ['e', ...others] } });
    const device = fakeSnapshot('device', 'd', { counts: counts('device'), links: { email: ['e'] } });
    const address = fakeSnapshot('address', 'a', { counts: counts('address') });
    const at = Date.now();
    const signals = orderSignals({
      orderValue: h.orderValue,
      at,
      cvvResultCodes: h.cvvFailed ? ['N'] : ['M'],
      avsResultCodes: [],
      giftCardUsed: false,
      billingShippingMismatch: false,
      ...orderHistoryOf(email, card, device, address, at),
    });
    return decide(order, defaultOrderWorkflow, signals).abuseScore;
  }

  it.each(['chargebacks', 'abusiveReturns'] as const)(
    'the order score never falls when %s rise',
    (counter) => {
      fc.assert(
        fc.property(history, fc.integer({ min: 1, max: 50 }), (h, more) => {
          return scoreOf({ ...h, [counter]: h[counter] + more }) >= scoreOf(h);
        }),
        { numRuns: 1_000 },
      );
    },
  );
});
