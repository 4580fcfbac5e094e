import { issueAddress, PERSONAL, providerOf, RING_ADDRESSES } from './emails.ts';
import {
  CARDHOLDER_NAME_SHARE,
  cardholderName,
  HOUSEHOLD_SURNAME_SHARE,
  nameAfter,
  type PersonName,
  personName,
} from './names.ts';
import { SeededRandom } from './random.ts';

/**
 * The multi-merchant scenario of `npm run eval` (docs/network.md): a ring places orders at merchants
 * A, C and D with fresh e-mails on a few cards and devices and loses fraud chargebacks there (the
 * network shows confirmed abuse only once three other merchants confirmed it); days later it moves to
 * merchant B, new e-mails on the same cards and devices. The server's clock follows the traffic, as
 * live traffic would set it: a cause counts a day after its merchant's sighting. Honest customers shop at two to
 * four of the four merchants throughout, each with their own e-mail, card and device (a few
 * households share a device and a home). The traffic is played twice on fresh merchants: all four in the
 * network, and none. Reported: B's catch (not approved) of the ring's first order on each card, with
 * no label at B, and the honest multi-merchant customers' decline rate over all their orders.
 */
export interface NetworkScenarioReport {
  ringFirstOrders: number;
  caughtWith: number;
  caughtWithout: number;
  honestOrders: number;
  honestDeclinedWith: number;
  honestDeclinedWithout: number;
  /** The honest orders declined with the network, with their reasons: what a tuning reads. */
  honestDeclineReasons: string[];
}

/** What the scenario reads of an answer (an order's first decision; other answers only their status). */
export interface OrderAnswer {
  cartLevelDecisions: { decisions: { decision: string; decisionReason: string }[] }[];
}

export interface ScenarioApi {
  /** A fresh merchant's events key and console key. */
  merchant: () => Promise<{ eventsKey: string; consoleKey: string }>;
  call: (
    method: string,
    key: string,
    path: string,
    body: unknown,
  ) => Promise<{ status: number; body: OrderAnswer }>;
  /** Runs the network worker until its queue is empty. */
  drain: () => Promise<void>;
  /** Sets the server's clock (and the worker's) to `at`; undefined gives the real clock back. */
  clock: (at: number | undefined) => void;
}

const DAY = 86_400_000;
const MERCHANTS = 4;
/** Where the ring loses its chargebacks before it moves to B (merchant 1). */
const RING_MERCHANTS = [0, 2, 3] as const;
const RING_CARDS = 24;
const RING_DEVICES = 6;
const HONEST_SHOPPERS = 400;

/** A ring's order on a stolen card: the cardholder's name on a share, else one made up for the e-mail. */
const ringName = (key: string, card: Order['card']) =>
  nameAfter(personName(key), cardholderName(card), key, { same: CARDHOLDER_NAME_SHARE });

/**
 * The address of a drawn handle under `name` (eval/emails.ts): at a large provider fixed by the
 * handle, as the ring's fresh e-mails or as people make their own. No draw: the stream is as it was.
 */
const addressOf = (world: SeededRandom, handle: string, name: PersonName, habits = PERSONAL) =>
  issueAddress(world, { handle, provider: providerOf(handle) }, name, { habits });

interface Order {
  merchant: number;
  at: number;
  email: string;
  /** The customer's name on the order (eval/names.ts; eval/README.md, "Names"). */
  name: PersonName;
  card: { BIN: string; last4: string; expiry: string };
  device: string;
  address: string;
  amount: string;
  ring: boolean;
  /** The ring's first order on its card at B. */
  firstAtB?: boolean;
  /** A lost fraud chargeback at its merchant, at this time. */
  lostAt?: number;
}

function traffic(seed: number, end: number): Order[] {
  const random = new SeededRandom(seed);
  const card = () => ({
    BIN: String(random.int(400000, 499999)),
    last4: String(random.int(1000, 9999)),
    expiry: `${String(random.int(1, 12)).padStart(2, '0')}/${random.int(27, 31)}`,
  });
  const orders: Order[] = [];
  const ringCards = Array.from({ length: RING_CARDS }, card);
  const ringDevices = Array.from({ length: RING_DEVICES }, () => random.id('ring-device'));
  const ringAddresses = Array.from({ length: 3 }, () => random.id('drop'));
  // The ring at A, C and D, 30 to 15 days before the end: an order per card at each; most are
  // charged back.
  for (const [i, c] of ringCards.entries()) {
    for (const [k, merchant] of RING_MERCHANTS.entries()) {
      const at = end - random.int(15 * DAY, 30 * DAY);
      // Names keyed by the address once drawn (`fresh-...@mail.example`), so they are as they were.
      const handle = random.id('fresh');
      const name = ringName(`${handle}@mail.example`, c);
      orders.push({
        merchant,
        at,
        email: addressOf(random, handle, name, RING_ADDRESSES),
        name,
        card: c,
        device: ringDevices[(i + k) % RING_DEVICES]!,
        address: random.pick(ringAddresses),
        amount: String(random.int(150, 600)),
        ring: true,
        ...(random.chance(0.7) ? { lostAt: at + random.int(5 * DAY, 12 * DAY) } : {}),
      });
    }
  }
  // The ring at B in the last two days: a new e-mail on each card, on the same devices.
  for (const [i, c] of ringCards.entries()) {
    // The same draws in the same order as ever: the time, then the e-mail.
    const at = end - random.int(60_000, 2 * DAY);
    const handle = random.id('fresh');
    const name = ringName(`${handle}@mail.example`, c);
    orders.push({
      merchant: 1,
      at,
      email: addressOf(random, handle, name, RING_ADDRESSES),
      name,
      card: c,
      device: ringDevices[(i + 3) % RING_DEVICES]!,
      address: random.pick(ringAddresses),
      amount: String(random.int(150, 600)),
      ring: true,
      firstAtB: true,
    });
  }
  // Honest customers at two to four merchants over 60 days; one in twenty lives in a household
  // whose members share its device and its home (and, on the households' share, its surname).
  const households = Array.from({ length: 10 }, () => ({
    device: random.id('household-device'),
    address: random.id('home'),
  }));
  for (let s = 0; s < HONEST_SHOPPERS; s++) {
    const handle = random.id('shopper');
    const drawn = `${handle}@mail.example`;
    const own = card();
    const household = random.chance(0.05) ? random.pick(households) : undefined;
    const { device, address } = household ?? { device: random.id('device'), address: random.id('home') };
    const name = household
      ? nameAfter(personName(drawn), personName(household.device), drawn, {
          relative: HOUSEHOLD_SURNAME_SHARE,
        })
      : personName(drawn);
    const email = addressOf(random, handle, name);
    const shops = new Set<number>();
    const wanted = random.int(2, MERCHANTS);
    while (shops.size < wanted) shops.add(random.int(0, MERCHANTS - 1));
    for (const merchant of shops) {
      for (let k = random.int(1, 3); k > 0; k--) {
        orders.push({
          merchant,
          at: end - random.int(60_000, 60 * DAY),
          email,
          name,
          card: own,
          device,
          address,
          amount: String(random.int(20, 250)),
          ring: false,
        });
      }
    }
  }
  return orders.sort((a, b) => a.at - b.at);
}

const orderBody = (order: Order, id: string) => ({
  intent: 'Order',
  state: 'PAID',
  providerOrderId: id,
  totalPrice: { currencyCode: '840', amount: order.amount },
  lineItems: [
    {
      identifiers: [{ identifierType: 'SKU', identifier: 'sku-1' }],
      title: 'Item',
      category: 'Apparel',
      quantity: '1',
      unitPrice: { currencyCode: '840', amount: order.amount },
    },
  ],
  customer: {
    firstName: order.name.firstName,
    lastName: order.name.surname,
    contactInformation: [
      { contactType: 'EMail', address: order.email },
      {
        contactType: 'ContactAddress',
        addressType: 'Shipping',
        address: { line1: `${order.address} Main St`, postalCode: '10001', country: 'US' },
      },
    ],
  },
  paymentInfo: [{ instrument: 'CC-A', ...order.card }],
  deviceFingerprints: [{ deviceIdentifier: order.device }],
  timestamp: String(order.at),
});

interface Run {
  caught: number;
  honestDeclined: number;
  honestOrders: number;
  reasons: string[];
}

async function play(api: ScenarioApi, orders: readonly Order[], member: boolean, end: number): Promise<Run> {
  // The merchants join before the traffic starts: feedback from before joining is not contributed.
  api.clock(orders[0]!.at - DAY);
  const merchants = [];
  for (let m = 0; m < MERCHANTS; m++) {
    const merchant = await api.merchant();
    if (member) {
      const joined = await api.call('PUT', merchant.consoleKey, '/v1/network', { enabled: true });
      if (joined.status !== 200) throw new Error(`joining the network failed: ${joined.status}`);
    }
    merchants.push(merchant);
  }
  const run: Run = { caught: 0, honestDeclined: 0, honestOrders: 0, reasons: [] };
  // Chargebacks are reported at their own time, between the orders.
  const chargebacks = orders
    .map((order, i) => ({ order, id: `o-${i}` }))
    .filter(({ order }) => order.lostAt !== undefined)
    .sort((a, b) => a.order.lostAt! - b.order.lostAt!);
  let next = 0;
  for (const [i, order] of orders.entries()) {
    while (next < chargebacks.length && chargebacks[next]!.order.lostAt! <= order.at) {
      const { order: lost, id } = chargebacks[next++]!;
      api.clock(lost.lostAt!);
      const key = merchants[lost.merchant]!.eventsKey;
      const dispute = {
        disputeId: `d-${id}`,
        disputeType: 'CHARGEBACK',
        disputeReason: '10.4',
        disputeStatus: 'LOST',
        disputeAmount: Number(lost.amount),
        timestamp: Math.min(lost.lostAt!, end),
      };
      const answer = await api.call('POST', key, `/v1/order/dispute/${id}`, { dispute: [dispute] });
      if (answer.status !== 200) throw new Error(`dispute failed: ${answer.status}`);
      await api.drain();
    }
    api.clock(order.at);
    const answer = await api.call(
      'POST',
      merchants[order.merchant]!.eventsKey,
      '/v1/order',
      orderBody(order, `o-${i}`),
    );
    if (answer.status !== 200)
      throw new Error(`order failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    const decision = answer.body.cartLevelDecisions[0]!.decisions[0]!;
    if (order.firstAtB && decision.decision !== 'APPROVE') run.caught++;
    if (!order.ring) {
      run.honestOrders++;
      if (decision.decision === 'DECLINE') {
        run.honestDeclined++;
        run.reasons.push(decision.decisionReason);
      }
    }
    // First sightings reach the network as the worker keeps up with the stream.
    if (member && i % 25 === 0) await api.drain();
  }
  return run;
}

export async function runNetworkScenario(
  api: ScenarioApi,
  seed: number,
  end: number,
): Promise<NetworkScenarioReport> {
  const orders = traffic(seed, end);
  const withNetwork = await play(api, orders, true, end);
  const without = await play(api, orders, false, end);
  return {
    ringFirstOrders: orders.filter((o) => o.firstAtB).length,
    caughtWith: withNetwork.caught,
    caughtWithout: without.caught,
    honestOrders: withNetwork.honestOrders,
    honestDeclinedWith: withNetwork.honestDeclined,
    honestDeclinedWithout: without.honestDeclined,
    honestDeclineReasons: withNetwork.reasons,
  };
}
