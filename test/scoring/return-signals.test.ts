import { describe, expect, it } from 'vitest';
import { METRIC } from '../../shared/identity/metrics.ts';
import { decide } from '../../shared/scoring/decide.ts';
import { modelFor } from '../../shared/scoring/models.ts';
import { type ReturnScoringInput, returnSignals } from '../../shared/scoring/signals/return-signals.ts';
import { DEFAULT_WORKFLOWS } from '../../shared/scoring/workflow.ts';
import { loadWorkflow } from '../../shared/scoring/workflow-engine.ts';
import { EMAIL, returned } from './scoring-inputs.ts';
import { countIn } from './snapshots.ts';

/**
 * One row per signal of return-signals.ts: a clean first return (store credit, one unit of one
 * bought, a week after the order) fires nothing; each change must fire exactly the expected signals.
 */
const values = (input: ReturnScoringInput) =>
  Object.fromEntries(Object.entries(returnSignals(input)).map(([name, s]) => [name, s.value]));

const log2 = Math.log2;

describe('returnSignals', () => {
  it.each<[string, ReturnScoringInput, Record<string, number>]>([
    ['a clean first return fires nothing', returned(), {}],
    [
      'more units returned than bought',
      returned({ item: { unitsReturnedBefore: 1 } }),
      { moreUnitsReturnedThanBought: 1 },
    ],
    ['exactly the units bought is fine', returned({ item: { quantity: 2, unitsBought: 2 } }), {}],
    [
      'abusive returns on a linked address',
      returned({ address: { counts: { [METRIC.abusiveReturns]: countIn('d365', 1) } } }),
      { abusiveReturnsOnIdentities: 1 },
    ],
    [
      'lost chargebacks on the return device',
      returned({ device: { counts: { [METRIC.lostChargebacks]: countIn('d365', 3) } } }),
      { lostChargebacksOnIdentities: 2 },
    ],
    [
      'open disputes',
      returned({ email: { counts: { [METRIC.openDisputes]: { lifetime: 1 } } } }),
      { openDisputesOnIdentities: 1 },
    ],
    [
      'returns in the last 30 days',
      returned({
        email: { counts: { [METRIC.orders]: { lifetime: 10 }, [METRIC.returns]: countIn('d30', 1) } },
      }),
      { returnsLast30Days: 1 },
    ],
    [
      'many returns in a year, and the rates they make',
      returned({
        email: {
          counts: {
            [METRIC.orders]: { lifetime: 4 },
            [METRIC.orderValue]: { lifetime: 200 },
            [METRIC.returns]: countIn('d365', 3),
            [METRIC.returnValue]: countIn('d365', 100),
          },
        },
      }),
      { returnsLast365Days: 1, returnRateByCount: 0.75, returnRateByValue: 0.5 },
    ],
    [
      'a rate over fewer than two prior returns stays silent',
      returned({
        email: {
          counts: {
            [METRIC.orders]: { lifetime: 1 },
            [METRIC.returns]: countIn('d365', 1),
            [METRIC.returnValue]: countIn('d365', 50),
          },
        },
      }),
      {},
    ],
    ['a late return', returned({ input: { daysSinceOrder: 45 } }), { lateReturn: 0.5 }],
    [
      'a high-value category',
      returned({ item: { category: 'Consumer Electronics' } }),
      { highValueCategory: 1 },
    ],
    ['a high-value item', returned({ item: { value: 1000 } }), { highValueItem: 2 }],
    [
      'refund to the original payment',
      returned({ input: { refundMode: 'ORIGINAL_PAYMENT' } }),
      { refundToOriginalPayment: 1 },
    ],
    ['an exchange', returned({ input: { refundMode: 'EXCHANGE' } }), { refundAsExchange: 1 }],
    [
      'a return device seen with other e-mails',
      returned({ device: { links: { email: [EMAIL, 'email-2', 'email-3', 'email-4'] } } }),
      // Nothing tells the device's home: the first other e-mail is a housemate's.
      { returnDeviceSharedAcrossEmails: log2(3) },
    ],
  ])('%s', (_, input, expected) => {
    expect(values(input)).toEqual(expected);
  });
});

const defaultReturnWorkflow = await loadWorkflow(DEFAULT_WORKFLOWS.return);

describe('return model calibration (default workflow)', () => {
  const decideReturn = (input: ReturnScoringInput) =>
    decide(modelFor('return'), defaultReturnWorkflow, returnSignals(input));

  it('approves a clean customer’s first return, refunded to the card', () => {
    expect(decideReturn(returned({ input: { refundMode: 'ORIGINAL_PAYMENT' } })).decision).toBe('APPROVE');
  });

  it('approves an occasional returner (2 of 5 orders returned this month)', () => {
    const email = {
      counts: {
        [METRIC.orders]: { lifetime: 5 },
        [METRIC.orderValue]: { lifetime: 250 },
        [METRIC.returns]: countIn('d30', 2),
        [METRIC.returnValue]: countIn('d30', 100),
      },
    };
    expect(decideReturn(returned({ email, input: { refundMode: 'ORIGINAL_PAYMENT' } })).decision).toBe(
      'APPROVE',
    );
  });

  it.each<[string, ReturnScoringInput]>([
    [
      'one confirmed abusive return',
      returned({ email: { counts: { [METRIC.abusiveReturns]: countIn('d30', 1) } } }),
    ],
    ['more units returned than bought', returned({ item: { unitsReturnedBefore: 1 } })],
  ])('takes the return off APPROVE after %s', (_, input) => {
    expect(decideReturn(input).decision).not.toBe('APPROVE');
  });

  it('declines a return from a customer with lost chargebacks and abusive returns', () => {
    const email = {
      counts: { [METRIC.abusiveReturns]: countIn('d30', 2), [METRIC.lostChargebacks]: countIn('d365', 1) },
    };
    expect(decideReturn(returned({ email })).decision).toBe('DECLINE');
  });
});
