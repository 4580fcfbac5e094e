import type { SeededRandom } from './random.ts';
import {
  accountBody,
  dispositionBody,
  disputeBody,
  loginBody,
  newShopper,
  type OrderBody,
  type OrderLine,
  orderBody,
  returnBody,
  type Shopper,
  signupBody,
} from './traffic.ts';

/**
 * Synthetic labeled traffic. Positives are the events where the abuse is visible to a history-based
 * service: the pattern's events after its first act (a second account from one device, a return
 * after an empty box, an order on a card already behind a lost chargeback, ...). First acts with no
 * history behind them are played but not scored, since nothing could tell them apart.
 */
export type EventType = 'order' | 'return' | 'signup' | 'login' | 'account';

export interface EvalContext {
  rng: SeededRandom;
  post: (path: string, body: unknown) => Promise<unknown>;
  record: (pattern: string, label: 0 | 1, eventType: EventType, response: unknown) => void;
}

export const LEGITIMATE = 'good shoppers';
const CATEGORIES = ['Apparel', 'Home', 'Electronics', 'Beauty', 'Books'];

function lines(
  rng: SeededRandom,
  count: number,
  minPrice: number,
  maxPrice: number,
  category?: string,
): OrderLine[] {
  return Array.from({ length: count }, () => ({
    sku: rng.id('sku'),
    price: rng.int(minPrice * 100, maxPrice * 100) / 100,
    quantity: 1,
    category: category ?? rng.pick(CATEGORIES),
  }));
}

async function placeOrder(ctx: EvalContext, order: OrderBody, pattern: string, label?: 0 | 1) {
  const response = await ctx.post('/v1/order', order);
  if (label !== undefined) ctx.record(pattern, label, 'order', response);
  return order;
}

/**
 * Good shoppers: accounts, logins, orders over the past year, returns and account changes, with the
 * untidy parts of real life: households sharing a device, typos before a login, a new phone, the
 * customer who returns a lot but honestly, the one who lost a chargeback once.
 */
export async function goodShoppers(ctx: EvalContext, count: number): Promise<Shopper[]> {
  const { rng } = ctx;
  const shoppers: Shopper[] = [];
  for (let i = 0; i < count; i++) {
    const household = shoppers.length > 0 && rng.chance(0.1) ? rng.pick(shoppers) : undefined;
    const shopper = newShopper(
      rng,
      household ? { device: household.device, address: household.address } : {},
    );
    shoppers.push(shopper);
    ctx.record(
      LEGITIMATE,
      0,
      'signup',
      await ctx.post('/v1/evaluate/signup', signupBody(rng, shopper, shopper.device)),
    );
    for (let l = rng.int(1, 3); l > 0; l--) {
      const device = rng.chance(0.05) ? rng.id('new-phone') : shopper.device;
      for (let typos = rng.chance(0.15) ? rng.int(1, 3) : 0; typos > 0; typos--) {
        await ctx.post('/v1/evaluate/login', loginBody(shopper, device, false));
      }
      ctx.record(
        LEGITIMATE,
        0,
        'login',
        await ctx.post('/v1/evaluate/login', loginBody(shopper, device, true)),
      );
    }
    const orders: { order: OrderBody; daysAgo: number }[] = [];
    for (let o = rng.int(1, 5); o > 0; o--) {
      const daysAgo = rng.int(5, 300);
      const order = orderBody(rng, shopper, lines(rng, rng.int(1, 3), 15, 250), daysAgo);
      orders.push({ order: await placeOrder(ctx, order, LEGITIMATE, 0), daysAgo });
    }
    if (rng.chance(0.03)) {
      const { order, daysAgo } = rng.pick(orders);
      await ctx.post(
        `/v1/order/dispute/${order.providerOrderId}`,
        disputeBody(rng, Number(order.totalPrice.amount), 'LOST', Math.max(0, daysAgo - 30)),
      );
    }
    const returns = rng.chance(0.3) ? (rng.chance(0.3) ? Math.min(2, orders.length) : 1) : 0;
    for (const { order, daysAgo } of orders.slice(0, returns)) {
      const returned = returnBody(rng, order, Math.max(0, daysAgo - rng.int(2, 20)), shopper.device);
      ctx.record(LEGITIMATE, 0, 'return', await ctx.post('/v1/return', returned));
      const [condition, outcome] = rng.pick([
        ['NEW', 'RESTOCK'],
        ['OPEN_BOX', 'RESTOCK'],
        ['LIGHTLY_USED', 'REFURBISH'],
        ['DAMAGED_ITEM', 'RECYCLED'],
      ]);
      await ctx.post(
        `/v1/return/disposition/${returned.providerReturnId}`,
        dispositionBody(returned, condition!, outcome!),
      );
    }
    if (rng.chance(0.2)) {
      const change = rng.pick([
        'ADDRESS_ADD',
        'EMAIL_CHANGE',
        'PAYMENT_METHOD_ADD',
        'PHONE_CHANGE',
        'PAYOUT_ADD',
      ]);
      ctx.record(
        LEGITIMATE,
        0,
        'account',
        await ctx.post('/v1/evaluate/account', accountBody(shopper, change, shopper.device)),
      );
    }
  }
  return shoppers;
}

/** Wardrobing: expensive apparel bought and returned again and again, worn. */
export async function serialReturners(ctx: EvalContext, count: number) {
  const { rng } = ctx;
  for (let i = 0; i < count; i++) {
    const shopper = newShopper(rng);
    for (let n = 0; n < 5; n++) {
      const daysAgo = 60 - n * 10;
      const order = await placeOrder(
        ctx,
        orderBody(rng, shopper, lines(rng, 2, 150, 600, 'Apparel'), daysAgo),
        'wardrobing',
      );
      const returned = returnBody(rng, order, daysAgo - rng.int(3, 8), shopper.device, 'ORIGINAL_PAYMENT');
      const response = await ctx.post('/v1/return', returned);
      if (n >= 2) ctx.record('wardrobing', 1, 'return', response);
      await ctx.post(
        `/v1/return/disposition/${returned.providerReturnId}`,
        dispositionBody(returned, rng.pick(['LIGHTLY_USED', 'HEAVILY_USED']), 'LIQUIDATE'),
      );
    }
  }
}

/** Empty-box returns: the box comes back without the item; the warehouse says so. */
export async function emptyBoxReturners(ctx: EvalContext, count: number) {
  const { rng } = ctx;
  for (let i = 0; i < count; i++) {
    const shopper = newShopper(rng);
    for (let n = 0; n < 3; n++) {
      const daysAgo = 90 - n * 25;
      const order = await placeOrder(
        ctx,
        orderBody(rng, shopper, lines(rng, 1, 200, 900, 'Electronics'), daysAgo),
        'empty box',
      );
      const returned = returnBody(rng, order, daysAgo - 5, shopper.device);
      const response = await ctx.post('/v1/return', returned);
      if (n >= 1) ctx.record('empty box', 1, 'return', response);
      await ctx.post(
        `/v1/return/disposition/${returned.providerReturnId}`,
        dispositionBody(returned, 'EMPTY_BOX', 'REMOVE_SUSPECT_ABUSE'),
      );
    }
  }
}

/** Chargeback fraud: a ring of e-mails sharing a few cards and devices; lost chargebacks follow. */
export async function chargebackRings(ctx: EvalContext, rings: number) {
  const { rng } = ctx;
  for (let r = 0; r < rings; r++) {
    const cards = Array.from({ length: 2 }, () => newShopper(rng).card);
    const devices = Array.from({ length: 2 }, () => rng.id('ring-device'));
    for (let m = 0; m < 6; m++) {
      const member = newShopper(rng, { card: cards[m % 2]!, device: devices[m % 2]! });
      const daysAgo = 40 - m * 5;
      const order = orderBody(rng, member, lines(rng, 2, 100, 500, 'Electronics'), daysAgo);
      await placeOrder(ctx, order, 'chargeback ring', m >= 2 ? 1 : undefined);
      if (m < 2) {
        await ctx.post(
          `/v1/order/dispute/${order.providerOrderId}`,
          disputeBody(rng, Number(order.totalPrice.amount), 'LOST', daysAgo - 20),
        );
      }
    }
  }
}

/** Multi-accounting: one device opening account after account. */
export async function multiAccounting(ctx: EvalContext, devices: number) {
  const { rng } = ctx;
  for (let d = 0; d < devices; d++) {
    const device = rng.id('farm-device');
    for (let n = 0; n < 5; n++) {
      const response = await ctx.post('/v1/evaluate/signup', signupBody(rng, newShopper(rng), device));
      if (n >= 1) ctx.record('multi-accounting', 1, 'signup', response);
    }
  }
}

/** Self-referral: referees signing up from the referrer's own device to collect the bonus. */
export async function selfReferral(ctx: EvalContext, referrers: number) {
  const { rng } = ctx;
  for (let r = 0; r < referrers; r++) {
    const referrer = newShopper(rng);
    await ctx.post('/v1/evaluate/signup', signupBody(rng, referrer, referrer.device));
    for (let n = 0; n < 2; n++) {
      const response = await ctx.post(
        '/v1/evaluate/signup',
        signupBody(rng, newShopper(rng), referrer.device, referrer.customerId),
      );
      ctx.record('self-referral', 1, 'signup', response);
    }
  }
}

/** Credential stuffing: one device trying many accounts with leaked passwords. */
export async function credentialStuffing(ctx: EvalContext, victims: readonly Shopper[], devices: number) {
  const { rng } = ctx;
  for (let d = 0; d < devices; d++) {
    const device = rng.id('stuffing-device');
    for (let n = 0; n < 25; n++) {
      const victim = rng.pick(victims);
      const response = await ctx.post('/v1/evaluate/login', loginBody(victim, device, rng.chance(0.08)));
      if (n >= 3) ctx.record('credential stuffing', 1, 'login', response);
    }
  }
}

/** Account takeover: failures then a success from a new device, then the payout is redirected. */
export async function accountTakeover(ctx: EvalContext, victims: readonly Shopper[]) {
  const { rng } = ctx;
  for (const victim of victims) {
    const device = rng.id('ato-device');
    for (let n = rng.int(4, 10); n > 0; n--)
      await ctx.post('/v1/evaluate/login', loginBody(victim, device, false));
    ctx.record(
      'account takeover',
      1,
      'login',
      await ctx.post('/v1/evaluate/login', loginBody(victim, device, true)),
    );
    const change = rng.pick(['PAYOUT_CHANGE', 'PAYOUT_ADD']);
    ctx.record(
      'account takeover',
      1,
      'account',
      await ctx.post('/v1/evaluate/account', accountBody(victim, change, device)),
    );
  }
}
