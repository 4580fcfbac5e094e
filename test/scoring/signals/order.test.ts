import { METRIC } from '../../../shared/identity/metrics.ts';
import {
  NETWORK_ABUSE_KINDS,
  type NetworkAbuse,
  type NetworkAbuseKind,
  type NetworkReputation,
} from '../../../shared/scoring/network-reputation.ts';
import { orderSignals } from '../../../shared/scoring/signals/order-signals.ts';
import { type WatchFacts, watchFacts } from '../../../shared/scoring/signals/watched-identity.ts';
import { AT, DAY, EMAIL, order, withOrders } from '../scoring-inputs.ts';
import { describeSignalRows, fires, sharedRows, silent } from '../signal-rows.ts';
import { countIn, fakeSnapshot, listMarker } from '../snapshots.ts';

const withTime = (time: ReturnType<typeof order>['time']) => order({ input: { time } });
const chargebackOnCard = {
  links: { email: [EMAIL] },
  counts: { [METRIC.lostChargebacks]: countIn('d30', 1) },
};

const withWatch = (watch: WatchFacts) => order({ input: { watch } });
/** The order's device as the watch reads it, listed after a lost fraud chargeback 30 days ago. */
const listedDevice = (chargebacks: number) =>
  fakeSnapshot('device', 'device-1', {
    lists: [listMarker({ list: 'watch', since: AT - 30 * DAY })],
    counts: { [METRIC.lostChargebacks]: countIn('d365', chargebacks) },
  });
const withNetwork = (network: NetworkReputation[]) => order({ input: { network } });
function reputation(
  kind: NetworkReputation['ref']['kind'],
  abuse: Partial<Record<NetworkAbuseKind, NetworkAbuse>>,
  newMerchantsLastDay = 0,
  abuseMerchants = Math.max(0, ...Object.values(abuse).map((a) => a.count)),
): NetworkReputation {
  const none = { count: 0, latestAt: undefined };
  return {
    ref: { kind, digest: `${kind}-1` },
    abuseMerchants,
    abuse: Object.fromEntries(
      NETWORK_ABUSE_KINDS.map((k) => [k, abuse[k] ?? none]),
    ) as NetworkReputation['abuse'],
    newMerchantsLastDay,
    merchants: newMerchantsLastDay,
    firstSeenAt: undefined,
  };
}
describeSignalRows('order', orderSignals, {
  watchedIdentityNewCustomer: sharedRows.watchedIdentityNewCustomer(withWatch, 'order'),
  watchedIdentityKnownCustomer: sharedRows.watchedIdentityKnownCustomer(withWatch, 'order'),
  scriptSpeedAfterPreviousEvent: sharedRows.scriptSpeedAfterPreviousEvent(withTime, 'order'),
  youngIdentity: sharedRows.youngIdentity(withTime, 'email', 'e-mail'),
  newIdentitiesAroundLastHour: sharedRows.newIdentitiesAroundLastHour(
    withTime,
    { pair: 'emailsPerCard', holder: 'card', others: 'e-mails' },
    'customersPerDevice',
  ),
  lostChargebacksOnIdentities: [
    fires(
      '1 on the card',
      order({ card: chargebackOnCard }),
      1,
      '1 lost chargeback on this card in 365 days',
    ),
    fires(
      'the worst of e-mail and card: 3 on the e-mail',
      order({
        card: chargebackOnCard,
        email: withOrders({ [METRIC.lostChargebacks]: countIn('d365', 3) }),
      }),
      2,
      '3 lost chargebacks on this e-mail in 365 days',
    ),
    silent(
      'a dispute lost over goods (item not received): not fraud',
      order({
        card: {
          links: { email: [EMAIL] },
          counts: {
            [METRIC.lostChargebacks]: countIn('d30', 1),
            [METRIC.lostServiceDisputes]: countIn('d30', 1),
          },
        },
      }),
    ),
    silent(
      'older than 365 days',
      order({ card: { links: { email: [EMAIL] }, counts: { [METRIC.lostChargebacks]: { lifetime: 4 } } } }),
    ),
    silent(
      'on the address only: not the customer’s own',
      order({ address: { counts: { [METRIC.lostChargebacks]: countIn('d365', 2) } } }),
    ),
  ],
  lostChargebacksOnSharedIdentities: [
    fires(
      'the address holds 3, the card’s own 1 among them',
      order({
        card: chargebackOnCard,
        address: { counts: { [METRIC.lostChargebacks]: countIn('d365', 3) } },
      }),
      Math.log2(3),
      '2 other lost chargebacks on this address in 365 days',
    ),
    fires(
      'an e-mail first seen 7 days before the order: half as much, 1 / (1 + 1^4)',
      order({
        email: { ...withOrders(), firstSeenAt: AT - 7 * DAY },
        address: { counts: { [METRIC.lostChargebacks]: countIn('d365', 3) } },
      }),
      1,
      '3 other lost chargebacks on this address in 365 days',
    ),
    silent(
      'an e-mail first seen 4 weeks before the order: a household member’s chargeback',
      order({
        email: { ...withOrders(), firstSeenAt: AT - 28 * DAY },
        address: { counts: { [METRIC.lostChargebacks]: countIn('d365', 3) } },
      }),
    ),
    silent(
      'disputes lost over goods (not fraud) do not count',
      order({
        address: {
          counts: {
            [METRIC.lostChargebacks]: countIn('d365', 2),
            [METRIC.lostServiceDisputes]: countIn('d365', 2),
          },
        },
      }),
    ),
    silent(
      'the chargeback that put the device on the watch list: the watch signals read it',
      order({
        input: {
          watch: watchFacts('order', [listedDevice(1)], [fakeSnapshot('email', EMAIL)], 'e-mail', AT),
        },
        device: { counts: { [METRIC.lostChargebacks]: countIn('d365', 1) } },
      }),
    ),
    fires(
      'two on the listed device: the one beyond the entry’s counts',
      order({
        input: {
          watch: watchFacts('order', [listedDevice(2)], [fakeSnapshot('email', EMAIL)], 'e-mail', AT),
        },
        device: { counts: { [METRIC.lostChargebacks]: countIn('d365', 2) } },
      }),
      1,
      '1 other lost chargeback on this device in 365 days',
    ),
    silent(
      'the customer’s own chargeback on its device is not counted twice',
      order({
        email: withOrders({ [METRIC.lostChargebacks]: countIn('d365', 1) }),
        device: { links: { email: [EMAIL] }, counts: { [METRIC.lostChargebacks]: countIn('d365', 1) } },
      }),
    ),
  ],
  freshAccountsOnYoungIdentity: [
    fires(
      'a fresh e-mail on a card first seen 3 days ago with 1 other e-mail',
      order({
        email: { counts: {} },
        card: { links: { email: [EMAIL, 'e2'] }, firstSeenAt: AT - 3 * DAY },
      }),
      1 / (1 + (3 / 7) ** 4),
      'card first seen 3 days ago, already used with 1 other e-mail',
    ),
    silent(
      'a long-standing e-mail on the family’s new card',
      order({
        email: { ...withOrders(), firstSeenAt: AT - 200 * DAY },
        card: { links: { email: [EMAIL, 'e2'] }, firstSeenAt: AT - DAY },
      }),
    ),
    silent(
      'a housemate: 1 other e-mail on a device days old that already shipped to this address',
      order({
        email: { counts: {} },
        device: { links: { email: [EMAIL, 'e2'], address: ['address-1'] }, firstSeenAt: AT - 2 * DAY },
        address: { firstSeenAt: AT - 2 * DAY },
      }),
    ),
    silent(
      'an order naming no device, its card first seen 3 days ago with 1 other e-mail: taken for a couple',
      (() => {
        const input = order({
          email: { counts: {} },
          card: { links: { email: [EMAIL, 'e2'] }, firstSeenAt: AT - 3 * DAY },
        });
        return { ...input, history: { ...input.history, devices: [] } };
      })(),
    ),
    silent(
      'at home, 3 other e-mails on a device days old: a household of four',
      order({
        email: { counts: {} },
        device: {
          links: { email: [EMAIL, 'e2', 'e3', 'e4'], address: ['address-1'] },
          firstSeenAt: AT - 2 * DAY,
        },
        address: { firstSeenAt: AT - 2 * DAY },
      }),
    ),
    silent(
      'at home, 5 other e-mails on a device days old that only ever shipped home: a family of six',
      order({
        email: { counts: {} },
        device: {
          links: { email: [EMAIL, 'e2', 'e3', 'e4', 'e5', 'e6'], address: ['address-1'] },
          firstSeenAt: AT - 2 * DAY,
        },
        address: { firstSeenAt: AT - 2 * DAY },
      }),
    ),
    fires(
      'at home, 5 other e-mails on a device days old that shipped to 3 other addresses too: two beyond a household of four',
      order({
        email: { counts: {} },
        device: {
          links: { email: [EMAIL, 'e2', 'e3', 'e4', 'e5', 'e6'], address: ['address-1', 'a2', 'a3', 'a4'] },
          firstSeenAt: AT - 2 * DAY,
        },
        address: { firstSeenAt: AT - 2 * DAY },
      }),
      Math.log2(1 + 2) * (1 / (1 + (172_800 / 3_024_000) ** 4)),
      'device first seen 2 days ago, already used with 5 other e-mails',
    ),
    fires(
      '1 other e-mail on a device days old, shipping to an address it never shipped to',
      order({
        email: { counts: {} },
        device: { links: { email: [EMAIL, 'e2'], address: ['address-2'] }, firstSeenAt: AT - 2 * DAY },
        address: { firstSeenAt: AT - 30 * DAY },
      }),
      1 / (1 + (2 / 7) ** 4),
      'device first seen 2 days ago, already used with 1 other e-mail',
    ),
    fires(
      '1 other e-mail on a card first seen 8 days ago: slower than the pace, it fades',
      order({
        email: { counts: {} },
        card: { links: { email: [EMAIL, 'e2'] }, firstSeenAt: AT - 8 * DAY },
      }),
      1 / (1 + (8 / 7) ** 4),
      'card first seen 8 days ago, already used with 1 other e-mail',
    ),
    silent(
      '1 other e-mail on a card first seen 25 days ago: far slower than the pace',
      order({
        email: { counts: {} },
        card: { links: { email: [EMAIL, 'e2'] }, firstSeenAt: AT - 25 * DAY },
      }),
    ),
  ],
  abusiveReturnsOnIdentities: [
    fires(
      '7 on the device',
      order({
        device: { links: { email: [EMAIL] }, counts: { [METRIC.abusiveReturns]: countIn('d365', 7) } },
      }),
      3,
      '7 abusive returns on this device in 365 days',
    ),
    silent(
      'older than 365 days',
      order({ address: { counts: { [METRIC.abusiveReturns]: { lifetime: 2 } } } }),
    ),
  ],
  openDisputesOnIdentities: [
    fires(
      '1 open on the e-mail, whenever opened',
      order({ email: withOrders({ [METRIC.openDisputes]: { lifetime: 1 } }) }),
      1,
      '1 open dispute on this e-mail',
    ),
    silent('none open', order()),
  ],
  cardSharedAcrossEmails: [
    fires(
      'the card seen with 3 other e-mails',
      order({ card: { links: { email: [EMAIL, 'e2', 'e3', 'e4'] } } }),
      2,
      'card used with 3 other e-mails',
    ),
    silent('the order’s own e-mail is not "other"', order({ card: { links: { email: [EMAIL] } } })),
  ],
  deviceSharedAcrossEmails: [
    fires(
      'the device seen with 1 other e-mail',
      order({ device: { links: { email: [EMAIL, 'e2'] } } }),
      1,
      'device used with 1 other e-mail',
    ),
    silent('only the order’s own e-mail', order()),
    fires(
      'an e-mail first seen 7 days before the order: half as much',
      order({
        email: { ...withOrders(), firstSeenAt: AT - 7 * DAY },
        device: { links: { email: [EMAIL, 'e2'] } },
      }),
      0.5,
      'device used with 1 other e-mail',
    ),
    silent(
      'an e-mail first seen 4 weeks before the order: a household’s device',
      order({
        email: { ...withOrders(), firstSeenAt: AT - 28 * DAY },
        device: { links: { email: [EMAIL, 'e2'] } },
      }),
    ),
  ],
  ordersLastHourOnIdentities: [
    fires(
      '4 on the card in the hour: log2(4)',
      order({ card: { links: { email: [EMAIL] }, counts: { [METRIC.orders]: countIn('h1', 4) } } }),
      2,
      '4 orders on this card in the last hour',
    ),
    silent(
      '1 in the hour',
      order({ email: withOrders({ [METRIC.orders]: { ...countIn('h1', 1), lifetime: 2 } }) }),
    ),
  ],
  newCustomer: [
    fires(
      'no earlier order on the e-mail',
      order({ email: { counts: {} } }),
      1,
      'first order from this e-mail',
    ),
    silent('2 earlier orders', order()),
  ],
  billingShippingMismatch: [
    fires(
      'addresses differ',
      order({ input: { billingShippingMismatch: true } }),
      1,
      'billing and shipping addresses differ',
    ),
    silent('addresses agree', order()),
  ],
  cvvMismatch: [
    fires('N, any case', order({ input: { cvvResultCodes: ['M', 'n'] } }), 1, 'CVV check failed'),
    silent('P and U', order({ input: { cvvResultCodes: ['P', 'U'] } })),
  ],
  avsMismatch: [
    fires('C', order({ input: { avsResultCodes: ['C'] } }), 1, 'address verification failed'),
    silent('Y', order({ input: { avsResultCodes: ['Y'] } })),
  ],
  giftCardUsed: [
    fires('a gift card paid', order({ input: { giftCardUsed: true } }), 1, 'paid with a gift card'),
    silent('a card paid', order()),
  ],
  legitimateReviewsOnIdentities: [
    fires(
      '1 on the e-mail',
      order({ email: withOrders({ [METRIC.legitimateReviews]: countIn('d30', 1) }) }),
      1,
      '1 review on this e-mail resolved as legitimate in 365 days',
    ),
    silent(
      'on the address: strangers may share it',
      order({ address: { counts: { [METRIC.legitimateReviews]: countIn('d30', 3) } } }),
    ),
  ],
  networkConfirmedAbuse: [
    fires(
      'a card that lost fraud chargebacks at 3 other merchants: the floor, log2(2) = 1',
      withNetwork([reputation('card', { chargeback: { count: 3, latestAt: AT - 3 * DAY } })]),
      1,
      'card lost fraud chargebacks at 3 other merchants in the last week',
    ),
    fires(
      'abusive returns at 5 other merchants on the device: log2(4) = 2, the worst of card and device',
      withNetwork([
        reputation('card', { chargeback: { count: 3, latestAt: AT - DAY } }),
        reputation('device', { disposition: { count: 5, latestAt: AT - 20 * DAY } }),
      ]),
      2,
      'device had abusive returns at 5 other merchants in the last month',
    ),
    fires(
      'an e-mail weighs half: takeovers at 2 merchants and a review at another, 3 in all, log2(2) / 2',
      withNetwork([
        reputation(
          'email',
          {
            takeover: { count: 2, latestAt: AT - 100 * DAY },
            review: { count: 1, latestAt: AT - 10 * DAY },
          },
          0,
          3,
        ),
      ]),
      0.5,
      'e-mail was in confirmed account takeovers at 2 other merchants in the last year (confirmed abuse at 3 other merchants in all)',
    ),
    silent(
      'two other merchants, however many causes: under the privacy floor, says nothing',
      withNetwork([reputation('card', { chargeback: { count: 2, latestAt: AT - DAY } })]),
    ),
    silent('only seen at other merchants, nothing confirmed', withNetwork([reputation('card', {}, 40)])),
    silent('a merchant outside the network reads nothing', order()),
  ],
  networkNewMerchantsLastDay: [
    fires(
      'first seen at 3 other merchants in the last day: the floor, log2(2) = 1',
      withNetwork([reputation('card', {}, 3)]),
      1,
      'card first seen at 3 other merchants in the last day',
    ),
    fires(
      'the most over card and device: 5 on the device, log2(4)',
      withNetwork([reputation('card', {}, 3), reputation('device', {}, 5)]),
      2,
      'device first seen at 5 other merchants in the last day',
    ),
    silent('2 other merchants: under the floor, says nothing', withNetwork([reputation('card', {}, 2)])),
    silent('a merchant outside the network reads nothing', order()),
  ],
  orderValueVsHistory: [
    fires(
      '4x the average',
      order({ input: { orderValue: 200 } }),
      2,
      "order value 4.0x this customer's average",
    ),
    fires(
      'capped at 3',
      order({ input: { orderValue: 5000 } }),
      3,
      "order value 100.0x this customer's average",
    ),
    silent('2x the average', order({ input: { orderValue: 100 } })),
    silent('no earlier order to compare with', order({ email: { counts: {} }, input: { orderValue: 5000 } })),
  ],
});
