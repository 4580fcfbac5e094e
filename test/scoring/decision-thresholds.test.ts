import { describe, expect, it } from 'vitest';
import type { EventType } from '../../shared/contract/endpoints.ts';
import { type Decision, decide } from '../../shared/scoring/decide.ts';
import { DEFAULT_SETTINGS, settingsFor } from '../../shared/scoring/decision-settings.ts';
import {
  DEFAULT_GUARD_FLOORS,
  type DecisionCosts,
  decisionCosts,
  decisionThresholds,
  economicCuts,
  floorsFor,
  scoreAtOrAbove,
  type ThresholdPolicy,
  thresholdReason,
} from '../../shared/scoring/decision-thresholds.ts';
import type { ScoringModel } from '../../shared/scoring/model.ts';
import type { Signals } from '../../shared/scoring/signals/signal.ts';
import { DEFAULT_WORKFLOWS } from '../../shared/scoring/workflow.ts';
import { loadWorkflow } from '../../shared/scoring/workflow-engine.ts';

const costs = (approvedAbuse: number, declinedGood: number, review = 5): DecisionCosts => ({
  approvedAbuse,
  declinedGood,
  review,
});
const NO_FLOORS = { declineAt: 0, reviewAt: 0 };

describe('decisionCosts: A, D and R per event type', () => {
  it.each<[EventType, Record<string, number>, number, DecisionCosts]>([
    // A chargeback loses the goods and the fee; a declined good order its margin.
    ['order', {}, 100, costs(115, 30)],
    ['order', { grossMargin: 0.5, chargebackFee: 0 }, 100, costs(100, 50)],
    // A return loses a share of the line's value; refusing a good one costs the same whatever it is.
    ['return', {}, 100, costs(60, 40)],
    ['return', { abusiveReturnLossShare: 1, reviewCost: 2 }, 30, costs(30, 40, 2)],
    // Accounts: no value of their own.
    ['signup', {}, 999, costs(200, 40)],
    ['account', { abusiveAccountCost: 500, goodCustomerDeclineCost: 10 }, 0, costs(500, 10)],
  ])('%s with %o at value %d', (type, stored, value, expected) => {
    expect(decisionCosts(type, settingsFor(type, stored), value)).toEqual(expected);
  });
});

describe('economicCuts: where the cheapest decision changes', () => {
  it.each<[string, DecisionCosts, boolean, ReturnType<typeof economicCuts>]>([
    // p·A > (1 − p)·D above D / (A + D): a 30 % margin and no fee, 0.3 / 1.3.
    ['order at a 30 % margin, no fee', costs(100, 30), false, { decline: 30 / 130 }],
    ['the fee lowers the cut', costs(115, 30), false, { decline: 30 / 145 }],
    // A review is cheaper than both in (R/A, 1 − R/D); DECLINE from where it beats a review.
    [
      'return with a review',
      costs(60, 40),
      true,
      { decline: 1 - 5 / 40, review: { from: 5 / 60, to: 1 - 5 / 40 } },
    ],
    ['the same without review capacity', costs(60, 40), false, { decline: 40 / 100 }],
    // R >= AD / (A + D): a review never pays.
    ['a review dearer than both', costs(10, 10, 5), true, { decline: 0.5 }],
    ['nothing to lose from abuse: never decline', costs(0, 40), true, { decline: 1 }],
    ['nothing lost declining: decline from 0', costs(60, 0), true, { decline: 0 }],
    ['nothing at stake at all', costs(0, 0), true, { decline: 1 }],
  ])('%s', (_, given, reviewAvailable, expected) => {
    const cuts = economicCuts(given, reviewAvailable);
    expect(cuts.decline).toBeCloseTo(expected.decline, 12);
    if (!expected.review) expect(cuts.review).toBeUndefined();
    else {
      expect(cuts.review?.from).toBeCloseTo(expected.review.from, 12);
      expect(cuts.review?.to).toBeCloseTo(expected.review.to, 12);
    }
  });
});

describe('decisionThresholds: scores at or above the cuts, raised by the guard', () => {
  it.each<[string, DecisionCosts, boolean, { declineAt: number; reviewAt: number }, [number, number]]>([
    // 23.08 % -> the smallest score at or above it is 24; no review: REVIEW equals DECLINE.
    ['30 % margin', costs(100, 30), false, NO_FLOORS, [24, 24]],
    ['a cut exactly on a score', costs(75, 25), false, NO_FLOORS, [25, 25]],
    ['the default floors raise it', costs(100, 30), false, DEFAULT_GUARD_FLOORS, [50, 50]],
    ['a review band: 8.3 % to 87.5 %', costs(60, 40), true, NO_FLOORS, [88, 9]],
    ['the review floor raises only REVIEW', costs(60, 40), true, DEFAULT_GUARD_FLOORS, [88, 30]],
    ['a trained version’s floors', costs(60, 40), true, { declineAt: 92, reviewAt: 60 }, [92, 60]],
    ['REVIEW is never above DECLINE', costs(60, 40), true, { declineAt: 40, reviewAt: 95 }, [88, 88]],
    ['a floor of 101 declines nothing', costs(100, 30), false, { declineAt: 101, reviewAt: 101 }, [101, 101]],
  ])('%s', (_, given, reviewAvailable, floors, [declineAt, reviewAt]) => {
    expect(decisionThresholds(given, reviewAvailable, floors)).toMatchObject({ declineAt, reviewAt });
  });

  it('rounds up, tolerating float noise', () => {
    // 0.1 + 0.2 is 0.30000000000000004: still a cut at 30.
    expect([0, 0.0001, 0.23, 0.1 + 0.2, 0.2301, 1].map(scoreAtOrAbove)).toEqual([0, 1, 23, 30, 24, 100]);
  });
});

describe('floorsFor: the guard in force for a model', () => {
  const settings = DEFAULT_SETTINGS.order;
  const guard = {
    modelVersion: 'order-default',
    budget: { maxGoodDeclinedShare: 0.005, maxGoodReviewedShare: 0.02 },
    declineAt: 12,
    reviewAt: 8,
  };
  const model = (version: string, thresholds?: { declineAt: number; reviewAt: number }): ScoringModel => ({
    eventType: 'order',
    version,
    bias: 0,
    weights: {},
    ...(thresholds ? { thresholds } : {}),
  });

  it.each<[string, ScoringModel, typeof settings, { declineAt: number; reviewAt: number }]>([
    ['measured for this model and budget', model('order-default'), settings, { declineAt: 12, reviewAt: 8 }],
    ['measured for another model: the default', model('order-next'), settings, DEFAULT_GUARD_FLOORS],
    [
      'measured under another budget: not used',
      model('order-default'),
      { ...settings, maxGoodDeclinedShare: 0.01 },
      DEFAULT_GUARD_FLOORS,
    ],
    [
      'a trained version: its own',
      model('v2', { declineAt: 70, reviewAt: 45 }),
      settings,
      {
        declineAt: 70,
        reviewAt: 45,
      },
    ],
  ])('%s', (_, live, current, expected) => {
    const floors = floorsFor(live, current, guard);
    expect({ declineAt: floors.declineAt, reviewAt: floors.reviewAt }).toEqual(expected);
  });
});

describe('thresholdReason: the economics in words', () => {
  const order = settingsFor('order', { grossMargin: 0.3, chargebackFee: 0 });
  it.each<
    [string, EventType, typeof order, DecisionCosts, boolean, number, 'DECLINE' | 'REVIEW', number, string]
  >([
    [
      'an order above the cut',
      'order',
      order,
      costs(100, 30),
      false,
      0,
      'DECLINE',
      78,
      '78 % likely abusive; at a 30 % margin, approving costs more than declining above 23 %',
    ],
    [
      'an order declined from the guard',
      'order',
      order,
      costs(100, 30),
      false,
      50,
      'DECLINE',
      62,
      '62 % likely abusive; at a 30 % margin, approving costs more than declining above 23 % (good-customer guard: 50 %)',
    ],
    [
      'a reviewed return',
      'return',
      DEFAULT_SETTINGS.return,
      costs(60, 40),
      true,
      0,
      'REVIEW',
      41,
      '41 % likely abusive; a review (5) costs less than approving or declining between 8 % and 88 %',
    ],
    [
      'a declined return above the review band',
      'return',
      DEFAULT_SETTINGS.return,
      costs(60, 40),
      true,
      0,
      'DECLINE',
      93,
      '93 % likely abusive; above 88 % declining costs less than a review (5)',
    ],
    [
      'a signup',
      'signup',
      DEFAULT_SETTINGS.signup,
      costs(200, 40),
      false,
      0,
      'DECLINE',
      20,
      '20 % likely abusive; at 200 per abusive account, approving costs more than declining above 17 %',
    ],
  ])('%s', (_, type, settings, given, reviewAvailable, floor, decision, score, expected) => {
    const thresholds = decisionThresholds(given, reviewAvailable, { declineAt: floor, reviewAt: 0 }, 100);
    expect(thresholdReason(type, settings, thresholds, decision, score)).toBe(expected);
  });

  it('names the value of a returned line', () => {
    const settings = DEFAULT_SETTINGS.return;
    const thresholds = decisionThresholds(decisionCosts('return', settings, 99.98), false, NO_FLOORS, 99.98);
    expect(thresholdReason('return', settings, thresholds, 'DECLINE', 65)).toBe(
      '65 % likely abusive; losing 60 % of 99.98 to abuse, approving costs more than declining above 40 %',
    );
  });
});

describe('decide with a threshold policy', () => {
  // A model scoring every event sigmoid(bias): ln(0.3 / 0.7) gives 30.
  const model = (bias: number): ScoringModel => ({ eventType: 'order', version: 'flat', bias, weights: {} });
  const noSignals: Signals = {};
  const policy = (stored: Record<string, number>, floors = NO_FLOORS): { thresholds: ThresholdPolicy } => ({
    thresholds: {
      settings: settingsFor('order', stored),
      reviewCapacityLeft: true,
      guard: { modelVersion: 'flat', budget: DEFAULT_SETTINGS.order, ...floors },
    },
  });
  const decideOrder = async (bias: number, stored: Record<string, number>, value = 100): Promise<Decision> =>
    decide(
      model(bias),
      await loadWorkflow(DEFAULT_WORKFLOWS.order),
      noSignals,
      { orderValue: value },
      policy(stored),
    );

  it('declines above the margin’s cut and approves below it, keeping the thresholds it used', async () => {
    const atThirty = Math.log(0.3 / 0.7);
    // 30 % margin, no fee: cut 23.1 % -> 24; a 50 % margin: 33.3 % -> 34.
    const thin = await decideOrder(atThirty, { grossMargin: 0.3, chargebackFee: 0 });
    expect(thin).toMatchObject({
      decision: 'DECLINE',
      abuseScore: 30,
      modelThresholds: { declineAt: 24, reviewAt: 24 },
    });
    expect(thin.reason).toMatch(
      /^30 % likely abusive; at a 30 % margin, approving costs more than declining above 23 %; /,
    );
    const fat = await decideOrder(atThirty, { grossMargin: 0.5, chargebackFee: 0 });
    expect(fat).toMatchObject({ decision: 'APPROVE', modelThresholds: { declineAt: 34, reviewAt: 34 } });
    expect(fat.reason).toBe('no abuse signals in the linked history');
  });

  it('follows the order’s value: a fee weighs more on a small order', async () => {
    const atTwenty = Math.log(0.2 / 0.8);
    // Value 10, fee 15: A = 25, D = 3 -> 10.7 %; value 1,000: A = 1,015, D = 300 -> 22.8 %.
    expect((await decideOrder(atTwenty, {}, 10)).modelThresholds).toEqual({ declineAt: 11, reviewAt: 11 });
    expect((await decideOrder(atTwenty, {}, 1_000)).modelThresholds).toEqual({ declineAt: 23, reviewAt: 23 });
  });

  it('reviews returns in the band while capacity is left, and not once it is used', async () => {
    const workflow = await loadWorkflow(DEFAULT_WORKFLOWS.return);
    const returns: ScoringModel = {
      eventType: 'return',
      version: 'flat',
      bias: Math.log(0.41 / 0.59),
      weights: {},
    };
    const decideReturn = (reviewCapacityLeft: boolean) =>
      decide(
        returns,
        workflow,
        noSignals,
        { itemValue: 100 },
        {
          thresholds: { settings: DEFAULT_SETTINGS.return, reviewCapacityLeft },
        },
      );
    expect(decideReturn(true)).toMatchObject({
      decision: 'REVIEW',
      subDecision: 'elevated_abuse_score',
      modelThresholds: { declineAt: 88, reviewAt: 30 },
    });
    // Without review the cut is D / (A + D) = 40 %, raised to the default guard's 50: 41 is approved.
    expect(decideReturn(false)).toMatchObject({
      decision: 'APPROVE',
      modelThresholds: { declineAt: 50, reviewAt: 50 },
    });
  });

  it('leaves a merchant’s own rules and their reasons alone', async () => {
    const workflow = await loadWorkflow({
      ...DEFAULT_WORKFLOWS.order,
      rules: [{ name: 'fixed', decision: 'DECLINE', condition: 'abuseScore >= 20', reason: 'our rule' }],
    });
    const decision = decide(model(Math.log(0.3 / 0.7)), workflow, noSignals, { orderValue: 100 }, policy({}));
    expect(decision).toMatchObject({ decision: 'DECLINE', subDecision: 'fixed' });
    expect(decision.reason).toBe('our rule; no abuse signals in the linked history');
  });
});
