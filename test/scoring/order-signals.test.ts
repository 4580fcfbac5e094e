import { describe, expect, it } from 'vitest';
import { METRIC } from '../../shared/identity/metrics.ts';
import { type OrderScoringInput, orderSignals } from '../../shared/scoring/signals/order-signals.ts';
import { AT, DAY, EMAIL, order, withOrders } from './scoring-inputs.ts';
import { countIn } from './snapshots.ts';

/**
 * One row per signal of order-signals.ts: a clean order (a returning customer paying as usual fires
 * nothing), changed in one way, must fire exactly the expected signals with the expected values.
 */
const values = (input: OrderScoringInput) =>
  Object.fromEntries(Object.entries(orderSignals(input)).map(([name, s]) => [name, s.value]));

describe('orderSignals, one row per signal', () => {
  const rows: [string, OrderScoringInput, Record<string, number>, string | undefined][] = [
    ['a clean returning customer fires nothing', order(), {}, undefined],
    [
      'lostChargebacksOnIdentities: 1 lost chargeback on the card -> log2(2) = 1',
      order({ card: { links: { email: [EMAIL] }, counts: { [METRIC.lostChargebacks]: countIn('d30', 1) } } }),
      { lostChargebacksOnIdentities: 1 },
      '1 lost chargeback on this card in 365 days',
    ],
    [
      'lostChargebacksOnIdentities: the worst of e-mail and card counts, 3 -> 2',
      order({
        card: { links: { email: [EMAIL] }, counts: { [METRIC.lostChargebacks]: countIn('d30', 1) } },
        email: withOrders({ [METRIC.lostChargebacks]: countIn('d365', 3) }),
      }),
      { lostChargebacksOnIdentities: 2 },
      '3 lost chargebacks on this e-mail in 365 days',
    ],
    [
      "lostChargebacksOnSharedIdentities: a household's shared device and address carry other members' chargebacks",
      order({
        card: { links: { email: [EMAIL] }, counts: { [METRIC.lostChargebacks]: countIn('d30', 1) } },
        device: { links: { email: [EMAIL, 'e2'] }, counts: { [METRIC.lostChargebacks]: countIn('d365', 1) } },
        address: { counts: { [METRIC.lostChargebacks]: countIn('d365', 3) } },
      }),
      {
        lostChargebacksOnSharedIdentities: Math.log2(3),
        lostChargebacksOnIdentities: 1,
        deviceSharedAcrossEmails: 1,
      },
      // The card's own chargeback reached the address too: 2 are other members'.
      '2 other lost chargebacks on this address in 365 days',
    ],
    [
      "lostChargebacksOnSharedIdentities: the customer's own chargeback on its device is not counted twice",
      order({
        email: withOrders({ [METRIC.lostChargebacks]: countIn('d365', 1) }),
        device: { links: { email: [EMAIL] }, counts: { [METRIC.lostChargebacks]: countIn('d365', 1) } },
      }),
      { lostChargebacksOnIdentities: 1 },
      '1 lost chargeback on this e-mail in 365 days',
    ],
    [
      "freshAccountsOnYoungIdentity: a fresh e-mail on a card first seen 3 days ago with 1 other e-mail (a ring's wave)",
      order({
        email: { counts: {} },
        card: { links: { email: [EMAIL, 'e2'] }, firstSeenAt: AT - 3 * DAY },
      }),
      { freshAccountsOnYoungIdentity: 1 / (1 + (3 / 7) ** 4), cardSharedAcrossEmails: 1, newCustomer: 1 },
      'card first seen 3 days ago, already used with 1 other e-mail',
    ],
    [
      'freshAccountsOnYoungIdentity: 3 other e-mails on a device first seen 20 days ago, near the pace (3 x 7 days): about half',
      order({
        email: { counts: {} },
        device: { links: { email: [EMAIL, 'e2', 'e3', 'e4'] }, firstSeenAt: AT - 20 * DAY },
      }),
      {
        freshAccountsOnYoungIdentity: 2 / (1 + (20 / 21) ** 4),
        deviceSharedAcrossEmails: 2,
        newCustomer: 1,
      },
      undefined,
    ],
    [
      'freshAccountsOnYoungIdentity: 1 other e-mail on a card first seen 25 days ago is far slower than the pace',
      order({
        email: { counts: {} },
        card: { links: { email: [EMAIL, 'e2'] }, firstSeenAt: AT - 25 * DAY },
      }),
      { cardSharedAcrossEmails: 1, newCustomer: 1 },
      undefined,
    ],
    [
      "freshAccountsOnYoungIdentity: a household member's long-standing e-mail on the family's new card does not fire",
      order({
        email: { ...withOrders({}), firstSeenAt: AT - 200 * DAY },
        card: { links: { email: [EMAIL, 'e2'] }, firstSeenAt: AT - DAY },
      }),
      { cardSharedAcrossEmails: 1 },
      undefined,
    ],
    [
      'lostChargebacksOnIdentities: older than 365 days does not count',
      order({ card: { links: { email: [EMAIL] }, counts: { [METRIC.lostChargebacks]: { lifetime: 4 } } } }),
      {},
      undefined,
    ],
    [
      'abusiveReturnsOnIdentities: 7 on the device -> 3',
      order({
        device: { links: { email: [EMAIL] }, counts: { [METRIC.abusiveReturns]: countIn('d365', 7) } },
      }),
      { abusiveReturnsOnIdentities: 3 },
      '7 abusive returns on this device in 365 days',
    ],
    [
      'openDisputesOnIdentities: lifetime count, 1 -> 1',
      order({ email: withOrders({ [METRIC.openDisputes]: { lifetime: 1 } }) }),
      { openDisputesOnIdentities: 1 },
      '1 open dispute on this e-mail',
    ],
    [
      'cardSharedAcrossEmails: the card seen with 3 other e-mails -> 2',
      order({ card: { links: { email: [EMAIL, 'e2', 'e3', 'e4'] } } }),
      { cardSharedAcrossEmails: 2 },
      'card used with 3 other e-mails',
    ],
    [
      'cardSharedAcrossEmails: the e-mail of the order itself is not "other"',
      order({ card: { links: { email: [EMAIL] } } }),
      {},
      undefined,
    ],
    [
      'deviceSharedAcrossEmails: the device seen with 1 other e-mail -> 1',
      order({ device: { links: { email: [EMAIL, 'e2'] } } }),
      { deviceSharedAcrossEmails: 1 },
      'device used with 1 other e-mail',
    ],
    [
      'ordersLastHourOnIdentities: 1 earlier order in the hour does not fire',
      order({ email: withOrders({ [METRIC.orders]: { ...countIn('h1', 1), lifetime: 2 } }) }),
      {},
      undefined,
    ],
    [
      'ordersLastHourOnIdentities: 4 earlier orders on the card in the hour -> log2(4) = 2',
      order({ card: { links: { email: [EMAIL] }, counts: { [METRIC.orders]: countIn('h1', 4) } } }),
      { ordersLastHourOnIdentities: 2 },
      '4 orders on this card in the last hour',
    ],
    [
      'newCustomer: no earlier order on the e-mail',
      order({ email: { counts: {} } }),
      { newCustomer: 1 },
      'first order from this e-mail',
    ],
    [
      'billingShippingMismatch',
      order({ input: { billingShippingMismatch: true } }),
      { billingShippingMismatch: 1 },
      'billing and shipping addresses differ',
    ],
    [
      'cvvMismatch: N, any case',
      order({ input: { cvvResultCodes: ['M', 'n'] } }),
      { cvvMismatch: 1 },
      'CVV check failed',
    ],
    ['cvvMismatch: other codes do not fire', order({ input: { cvvResultCodes: ['P', 'U'] } }), {}, undefined],
    [
      'avsMismatch: C',
      order({ input: { avsResultCodes: ['C'] } }),
      { avsMismatch: 1 },
      'address verification failed',
    ],
    ['avsMismatch: Y does not fire', order({ input: { avsResultCodes: ['Y'] } }), {}, undefined],
    ['giftCardUsed', order({ input: { giftCardUsed: true } }), { giftCardUsed: 1 }, 'paid with a gift card'],
    [
      'orderValueVsHistory: 4x the average -> log2(4) = 2',
      order({ input: { orderValue: 200 } }),
      { orderValueVsHistory: 2 },
      "order value 4.0x this customer's average",
    ],
    [
      'orderValueVsHistory: capped at 3',
      order({ input: { orderValue: 5000 } }),
      { orderValueVsHistory: 3 },
      undefined,
    ],
    [
      'orderValueVsHistory: 2x the average does not fire',
      order({ input: { orderValue: 100 } }),
      {},
      undefined,
    ],
    [
      'legitimateReviewsOnIdentities: 1 on the e-mail -> 1',
      order({ email: withOrders({ [METRIC.legitimateReviews]: countIn('d30', 1) }) }),
      { legitimateReviewsOnIdentities: 1 },
      '1 review on this e-mail resolved as legitimate in 365 days',
    ],
    [
      'legitimateReviewsOnIdentities: a vouched-for address is not the customer',
      order({ address: { counts: { [METRIC.legitimateReviews]: countIn('d30', 3) } } }),
      {},
      undefined,
    ],
    [
      'scriptSpeedAfterPreviousEvent and youngIdentity: the order 4 s after its e-mail signed up',
      order({ email: { ...withOrders({}), firstSeenAt: AT - 4_000 } }),
      { scriptSpeedAfterPreviousEvent: 1 / (1 + 0.2 ** 4), youngIdentity: 1 - 4 / 600 },
      "order 4 seconds after this e-mail's previous event",
    ],
    [
      'youngIdentity alone: a guest checkout 5 minutes after the signup -> 1 - 300/600',
      order({ email: { ...withOrders({}), firstSeenAt: AT - 300_000 } }),
      { youngIdentity: 0.5 },
      'e-mail first seen 5 minutes ago',
    ],
    [
      'youngIdentity: an e-mail first seen 10 minutes or more before does not fire',
      order({ email: { ...withOrders({}), firstSeenAt: AT - 600_000 } }),
      {},
      undefined,
    ],
    [
      "scriptSpeedAfterPreviousEvent: the e-mail's previous event 1 s before (and young)",
      order({ email: { ...withOrders({}), firstSeenAt: AT - 5 * 86_400_000, lastSeenAt: AT - 1_000 } }),
      { scriptSpeedAfterPreviousEvent: 1 / (1 + 0.05 ** 4) },
      "order 1 second after this e-mail's previous event",
    ],
    [
      'scriptSpeedAfterPreviousEvent: a previous event after the order (late delivery) does not fire',
      order({ email: { ...withOrders({}), firstSeenAt: AT - 86_400_000, lastSeenAt: AT + 1_000 } }),
      {},
      undefined,
    ],
    [
      'newIdentitiesAroundLastHour: 3 other e-mails on the device in the hour -> log2(3)',
      order({ device: { links: { email: [EMAIL] }, distinct: { email: { m15: 2, h1: 3, h24: 3 } } } }),
      { newIdentitiesAroundLastHour: Math.log2(3) },
      'device seen with 3 other e-mails in the last hour',
    ],
    [
      'newIdentitiesAroundLastHour: one other e-mail (a household) does not fire',
      order({ device: { links: { email: [EMAIL, 'e2'] }, distinct: { email: { m15: 1, h1: 1, h24: 1 } } } }),
      { deviceSharedAcrossEmails: 1 },
      undefined,
    ],
  ];

  it.each(rows)('%s', (_label, input, expected, evidence) => {
    expect(values(input)).toEqual(expected);
    if (evidence !== undefined) {
      const [name] = Object.keys(expected);
      expect(orderSignals(input)[name!]?.evidence).toBe(evidence);
    }
  });
});
