import {
  ago,
  clampToEnd,
  type EvalContext,
  type EventType,
  endOf,
  gap,
  type Label,
  lifeGap,
  patternStart,
} from './context.ts';
import {
  type AddressHabits,
  BURST_ADDRESSES,
  COMEBACK_ADDRESSES,
  issueAddress,
  MULTI_ACCOUNT_ADDRESSES,
  otherProvider,
  PERSONAL,
  REFEREE_ADDRESSES,
  RING_ADDRESSES,
  TAKEOVER_ADDRESSES,
} from './emails.ts';
import {
  CARDHOLDER_NAME_SHARE,
  cardholderName,
  FAMILY_SURNAME_SHARE,
  HOUSEHOLD_SURNAME_SHARE,
  type NamedAfter,
  nameAfter,
  type PersonName,
  personName,
} from './names.ts';
import { logUniform } from './params.ts';
import type { SeededRandom } from './random.ts';
import { stableChance } from './stable.ts';
import {
  accountBody,
  dispositionBody,
  disputeBody,
  loginBody,
  newShopper,
  type OrderBody,
  type OrderLine,
  orderBody,
  renamed,
  returnBody,
  type Shopper,
  signupBody,
} from './traffic.ts';

/**
 * Synthetic labeled traffic on one timeline. Every pattern schedules its events at their own times
 * (the past year up to `now`); the evaluation plays all of them in time order with the server's
 * clock at each event's time, as live traffic would arrive. Feedback therefore reaches a later event
 * only if it happened before it: a chargeback filed 40 days after an order is invisible to the
 * ring's orders of the next week. Positives are the events where the abuse is visible to a
 * history-based service: a pattern's events after its first act, except where the act itself shows
 * (a bot's order seconds after its signup). First acts with no history are played but not scored.
 */

export const LEGITIMATE = 'good shoppers';
const CATEGORIES = ['Apparel', 'Home', 'Electronics', 'Beauty', 'Books'];
const SECOND = 1_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

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

const good = (eventType: EventType, cohort?: string): Label => ({
  pattern: LEGITIMATE,
  label: 0,
  eventType,
  ...(cohort ? { cohort } : {}),
});
const abuse = (pattern: string, eventType: EventType, evidenceAt?: number): Label => ({
  pattern,
  label: 1,
  eventType,
  ...(evidenceAt === undefined ? {} : { evidenceAt }),
});

/** When the merchant holds verdicts on `needed` of the earlier steps: the needed-th smallest time. */
const evidenceOnce = (feedbackTimes: readonly number[], needed: number) =>
  [...feedbackTimes].sort((a, b) => a - b)[needed - 1] ?? Number.POSITIVE_INFINITY;

function sendOrder(ctx: EvalContext, order: OrderBody, label?: Label) {
  ctx.send(Number(order.timestamp), '/v1/order', order, label);
}

/**
 * The account named after `person` on the shares given (eval/names.ts), chosen by the account's own
 * id, with the address its holder makes for it under that name as `habits` say (eval/emails.ts;
 * `earlier` is the holder's other address, where the habits vary it): no random draw. The names and
 * addresses each pattern uses are described in eval/README.md ("Names", "E-mails").
 */
function namedAfter(
  rng: SeededRandom,
  account: Shopper,
  person: PersonName,
  shares: NamedAfter,
  habits: AddressHabits = PERSONAL,
  earlier?: string,
): Shopper {
  const name = nameAfter(account, person, account.customerId, shares);
  return renamed(rng, account, name, habits, earlier);
}

/** A household member: the surname of the member he is linked to, on the household's share. */
const householdMember = (
  rng: SeededRandom,
  member: Shopper,
  linked: Shopper,
  share = HOUSEHOLD_SURNAME_SHARE,
) => namedAfter(rng, member, linked, { relative: share });

/**
 * An order or account on a stolen card: the cardholder's name on a share, else a made-up one; the
 * fresh e-mail made for the fraud as the ring's or the bots' habits say.
 */
const onStolenCard = (rng: SeededRandom, account: Shopper, habits = RING_ADDRESSES) =>
  namedAfter(rng, account, cardholderName(account.card), { same: CARDHOLDER_NAME_SHARE }, habits);

/**
 * The new address of an honest customer's e-mail change: his own name again, at another provider
 * (people change their address mostly when they leave a provider), made as his first one was.
 */
const changedAddress = (rng: SeededRandom, shopper: Shopper) => {
  const key = `${shopper.mailbox.handle}:changed`;
  return issueAddress(rng, { handle: key, provider: otherProvider(shopper.mailbox.provider, key) }, shopper);
};

/**
 * A signup as the merchant's integration sends it: a phone and a billing address on the share of
 * signups the parameters say (drawn from the customer's id, so the random stream stays as it was).
 */
function signup(ctx: EvalContext, shopper: Shopper, device: string, at: number, referrerID?: string) {
  const { signupPhone, signupBilling } = ctx.params.fields;
  const phone = stableChance(`phone:${shopper.customerId}`) < signupPhone;
  const billing = stableChance(`billing:${shopper.customerId}`) < signupBilling;
  return signupBody(ctx.rng, shopper, device, at, referrerID, {
    ...(phone ? { phone: phoneOf(shopper) } : {}),
    ...(billing ? { billing: shopper.address } : {}),
  });
}

/**
 * Good shoppers: accounts, logins, orders over the past year, returns and account changes, with the
 * untidy parts of real life: households sharing a device, typos before a login, a new phone, the
 * customer who returns a lot but honestly, the one who lost a chargeback once, and the guest who
 * creates an account at checkout and orders a few minutes later.
 */
export function goodShoppers(ctx: EvalContext, count: number): Shopper[] {
  const { rng, now } = ctx;
  const shoppers: Shopper[] = [];
  for (let i = 0; i < count; i++) {
    const household = shoppers.length > 0 && rng.chance(0.1) ? rng.pick(shoppers) : undefined;
    const drawn = newShopper(rng, household ? { device: household.device, address: household.address } : {});
    const shopper = household ? householdMember(rng, drawn, household) : drawn;
    shoppers.push(shopper);
    /** A household member's events are reported on their own too. */
    const cohort = household ? 'household member on a shared device' : undefined;
    const joined = ago(ctx, rng.int(20, 400) * DAY - rng.int(0, DAY));
    ctx.send(
      joined,
      '/v1/evaluate/signup',
      signup(ctx, shopper, shopper.device, joined),
      good('signup', cohort),
    );
    // Logins, orders and account changes spread over the shopper's life, from an hour after joining.
    const first = lifeGap(ctx, HOUR);
    const span = Math.max(first, now - lifeGap(ctx, DAY) - joined);
    for (let l = rng.int(1, 3); l > 0; l--) {
      const device = rng.chance(0.05) ? rng.id('new-phone') : shopper.device;
      const at = joined + rng.int(first, span);
      const typos = rng.chance(0.15) ? rng.int(1, 3) : 0;
      for (let t = typos; t > 0; t--) {
        ctx.send(
          at - t * 20 * SECOND,
          '/v1/evaluate/login',
          loginBody(shopper, device, false, at - t * 20 * SECOND),
        );
      }
      ctx.send(at, '/v1/evaluate/login', loginBody(shopper, device, true, at), good('login', cohort));
    }
    // A guest-to-account checkout: the first order minutes (never seconds) after the signup.
    const checkoutSignup = rng.chance(0.2);
    const orders: OrderBody[] = [];
    for (let o = rng.int(1, 5); o > 0; o--) {
      const at =
        checkoutSignup && orders.length === 0
          ? joined + rng.int(2 * MINUTE, 15 * MINUTE)
          : joined + rng.int(first, span);
      orders.push(orderBody(rng, shopper, lines(rng, rng.int(1, 3), 15, 250), at));
    }
    /** Orders after a fraud claim of the cardholder's own: friendly fraud or not, left unjudged. */
    let unjudgedAfter = Number.POSITIVE_INFINITY;
    if (rng.chance(0.03)) {
      const order = rng.pick(orders);
      const filed = Number(order.timestamp) + rng.int(30, 60) * DAY;
      if (filed < endOf(ctx)) {
        // Honest customers lose disputes over goods (not received, not as described); a third are
        // coded fraud (a family member's purchase the cardholder did not know of), after which the
        // issuer reissues the card, so the customer's later orders carry a new one.
        const reason = honestDisputeReason(order.providerOrderId);
        ctx.send(
          filed,
          `/v1/order/dispute/${order.providerOrderId}`,
          disputeBody(rng, Number(order.totalPrice.amount), 'LOST', filed, reason),
        );
        if (reason === 'FRAUD') {
          reissueCard(orders, filed, order.providerOrderId);
          unjudgedAfter = filed;
        }
      }
    }
    for (const order of orders)
      sendOrder(ctx, order, Number(order.timestamp) > unjudgedAfter ? undefined : good('order', cohort));
    const returns = rng.chance(0.3) ? (rng.chance(0.3) ? Math.min(2, orders.length) : 1) : 0;
    let usedBefore = false;
    for (const order of orders.slice(0, returns)) {
      const at = clampToEnd(ctx, Number(order.timestamp) + rng.int(2, 20) * DAY, HOUR);
      const returned = returnBody(rng, order, at, shopper.device);
      ctx.send(at, '/v1/return', returned, good('return', cohort));
      const [condition, outcome] = rng.pick([
        ['NEW', 'RESTOCK'],
        ['OPEN_BOX', 'RESTOCK'],
        ['LIGHTLY_USED', 'REFURBISH'],
        ['DAMAGED_ITEM', 'RECYCLED'],
      ]);
      inspect(ctx, returned, condition!, warehouseOutcome(returned, condition!, usedBefore, outcome!));
      usedBefore ||= USED_CONDITIONS.has(condition!);
    }
    if (rng.chance(0.2)) {
      const change = rng.pick([
        'ADDRESS_ADD',
        'EMAIL_CHANGE',
        'PAYMENT_METHOD_ADD',
        'PHONE_CHANGE',
        'PAYOUT_ADD',
      ]);
      const at = joined + rng.int(first, span);
      const newValue = change === 'EMAIL_CHANGE' ? changedAddress(rng, shopper) : undefined;
      ctx.send(
        at,
        '/v1/evaluate/account',
        accountBody(shopper, change, shopper.device, at, newValue),
        good('account', cohort),
      );
    }
  }
  return shoppers;
}

/**
 * Honest look-alikes of young shared identities (the freshAccountsOnYoungIdentity signal), so the
 * guardrails test it; scheduled after every other pattern, so the rest of the traffic is unchanged:
 * - `newPhones` households where two people sign up on one NEW shared phone within the same week,
 *   then log in and order on it over the following months like any shopper;
 * - `newCards` households (an earlier shopper and a member sharing the device) where one takes a new
 *   card, orders with it, and the other member pays with it within a few days.
 */
export function householdLookAlikes(
  ctx: EvalContext,
  shoppers: readonly Shopper[],
  counts: { newPhones: number; newCards: number },
) {
  const { rng } = ctx;
  const sizes = ctx.params.households;
  for (let h = 0; h < counts.newPhones; h++) {
    const phone = rng.id('family-phone');
    const first = newShopper(rng, { device: phone });
    const size = sizes ? rng.int(...sizes.members) : 2;
    const others = Array.from({ length: size - 1 }, () =>
      householdMember(
        rng,
        newShopper(rng, { device: phone, address: first.address }),
        first,
        FAMILY_SURNAME_SHARE,
      ),
    );
    let joined = ago(ctx, rng.int(30, 300) * DAY);
    const members: [Shopper, number][] = [[first, joined]];
    for (const member of others) {
      joined += sizes ? logUniform(rng, sizes.joinGap) : rng.int(HOUR, 7 * DAY);
      members.push([member, joined]);
    }
    for (const [member, at] of members) {
      ctx.send(
        at,
        '/v1/evaluate/signup',
        signup(ctx, member, phone, at),
        good('signup', 'household on a new shared phone'),
      );
      for (let o = rng.int(1, 3); o > 0; o--) {
        const ordered = at + rng.int(lifeGap(ctx, HOUR), lifeGap(ctx, 20 * DAY));
        ctx.send(
          ordered - MINUTE,
          '/v1/evaluate/login',
          loginBody(member, phone, true, ordered - MINUTE),
          good('login', 'household on a new shared phone'),
        );
        sendOrder(
          ctx,
          orderBody(rng, member, lines(rng, rng.int(1, 3), 15, 250), ordered),
          good('order', 'household on a new shared phone'),
        );
      }
    }
  }
  // One new card per household: its first shopper (the holder) and the next member on its device.
  const households: [Shopper, Shopper][] = [];
  for (const [i, shopper] of shoppers.entries()) {
    const holder = shoppers.slice(0, i).find((earlier) => earlier.device === shopper.device);
    if (holder && !households.some(([first]) => first.device === shopper.device))
      households.push([holder, shopper]);
  }
  for (const [holder, member] of households.slice(0, counts.newCards)) {
    const card = newShopper(rng).card;
    const at = ago(ctx, rng.int(5 * DAY, 15 * DAY));
    sendOrder(
      ctx,
      orderBody(rng, { ...holder, card }, lines(rng, rng.int(1, 3), 15, 250), at),
      good('order', 'household sharing a new card'),
    );
    const borrowed = at + rng.int(lifeGap(ctx, HOUR), lifeGap(ctx, 5 * DAY));
    sendOrder(
      ctx,
      orderBody(rng, { ...member, card }, lines(rng, rng.int(1, 3), 15, 250), borrowed),
      good('order', 'household sharing a new card'),
    );
  }
}

/** An honest customer's lost dispute: mostly about the goods, a third coded fraud. No random draw. */
function honestDisputeReason(orderId: string): string {
  const draw = stableChance(`reason:${orderId}`);
  return draw < 1 / 3 ? 'FRAUD' : draw < 2 / 3 ? 'INR' : 'IND';
}

/** After a fraud claim the issuer reissues the card: orders placed after `at` pay with the new one. */
function reissueCard(orders: readonly OrderBody[], at: number, seed: string) {
  const last4 = String(1000 + Math.floor(stableChance(`reissue:${seed}`) * 9000));
  for (const order of orders) {
    if (Number(order.timestamp) <= at) continue;
    for (const payment of order.paymentInfo) Object.assign(payment, { last4, expiry: '12/32' });
  }
}

/** The warehouse inspects a return days after it was requested (dispositions carry no time). */
function inspect(
  ctx: EvalContext,
  returned: ReturnType<typeof returnBody>,
  condition: string,
  outcome: string,
) {
  const at = clampToEnd(ctx, Number(returned.timestamp) + ctx.rng.int(2, 7) * DAY, 0);
  ctx.send(
    at,
    `/v1/return/disposition/${returned.providerReturnId}`,
    dispositionBody(returned, condition, outcome),
  );
  return at;
}

const USED_CONDITIONS: ReadonlySet<string> = new Set(['LIGHTLY_USED', 'HEAVILY_USED']);
/** Share of repeated used returns a warehouse's loss-prevention check catches. */
const WAREHOUSE_FLAGS_REPEATED_USE = 0.8;

/**
 * What a warehouse with a loss-prevention check sends (REMOVE_SUSPECT_ABUSE with
 * repeated used items from one customer is the strongest confirmation of abuse): an item that comes
 * back used from a customer whose previous return also came back used is disposed of as suspected
 * abuse, most of the time (the inspector sees the customer's return history, but not always). The
 * rule knows nothing of who is abusive: an honest customer's second worn return is flagged too. The
 * draw depends only on the return's id, so it leaves the traffic's random stream as it was.
 */
function warehouseOutcome(
  returned: ReturnType<typeof returnBody>,
  condition: string,
  usedBefore: boolean,
  usualOutcome: string,
): string {
  const repeatedUse = usedBefore && USED_CONDITIONS.has(condition);
  return repeatedUse && stableChance(returned.providerReturnId) < WAREHOUSE_FLAGS_REPEATED_USE
    ? 'REMOVE_SUSPECT_ABUSE'
    : usualOutcome;
}

/** The shopper's own mobile number, fixed by the customer's id (no random draw). */
function phoneOf(shopper: Shopper): string {
  const digits = String(Math.floor(stableChance(`number:${shopper.customerId}`) * 1e10)).padStart(10, '0');
  return `+1 ${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6)}`;
}

/** Wardrobing: expensive apparel bought and returned again and again, worn. */
export function serialReturners(ctx: EvalContext, count: number) {
  const { rng } = ctx;
  for (let i = 0; i < count; i++) {
    const shopper = newShopper(rng);
    const start = patternStart(ctx, rng.int(70, 120) * DAY);
    const verdicts: number[] = [];
    for (let n = 0; n < 5; n++) {
      const order = orderBody(
        rng,
        shopper,
        lines(rng, 2, 150, 600, 'Apparel'),
        start + gap(ctx, n * 12 * DAY),
      );
      sendOrder(ctx, order);
      const at = Number(order.timestamp) + rng.int(3, 6) * DAY;
      const returned = returnBody(rng, order, at, shopper.device, 'ORIGINAL_PAYMENT');
      // Wearing again and again shows once two earlier returns have come back used.
      const label = n >= 2 ? abuse('wardrobing', 'return', evidenceOnce(verdicts, 2)) : undefined;
      ctx.send(at, '/v1/return', returned, label);
      const condition = rng.pick(['LIGHTLY_USED', 'HEAVILY_USED']);
      verdicts.push(
        inspect(ctx, returned, condition, warehouseOutcome(returned, condition, n >= 1, 'LIQUIDATE')),
      );
    }
  }
}

/** Empty-box returns: the box comes back without the item; the warehouse says so. */
export function emptyBoxReturners(ctx: EvalContext, count: number) {
  const { rng } = ctx;
  for (let i = 0; i < count; i++) {
    const shopper = newShopper(rng);
    const start = patternStart(ctx, rng.int(100, 150) * DAY);
    const verdicts: number[] = [];
    for (let n = 0; n < 3; n++) {
      const placed = start + gap(ctx, n * 25 * DAY);
      const order = orderBody(rng, shopper, lines(rng, 1, 200, 900, 'Electronics'), placed);
      sendOrder(ctx, order);
      const at = Number(order.timestamp) + 5 * DAY;
      const returned = returnBody(rng, order, at, shopper.device);
      const label = n >= 1 ? abuse('empty box', 'return', evidenceOnce(verdicts, 1)) : undefined;
      ctx.send(at, '/v1/return', returned, label);
      verdicts.push(inspect(ctx, returned, 'EMPTY_BOX', 'REMOVE_SUSPECT_ABUSE'));
    }
  }
}

/**
 * Chargeback fraud: a ring of e-mails sharing a few cards and devices. Its first two orders are
 * charged back 10-20 days later; the ring keeps ordering after those chargebacks have landed.
 */
export function chargebackRings(ctx: EvalContext, rings: number) {
  const { rng } = ctx;
  for (let r = 0; r < rings; r++) {
    const cards = Array.from({ length: 2 }, () => newShopper(rng).card);
    const devices = Array.from({ length: 2 }, () => rng.id('ring-device'));
    const start = patternStart(ctx, rng.int(120, 200) * DAY);
    // The chargeback on each card and device pair's first order: what shows the pair's later ones.
    const chargebacks: number[] = [];
    for (let m = 0; m < 6; m++) {
      const member = onStolenCard(rng, newShopper(rng, { card: cards[m % 2]!, device: devices[m % 2]! }));
      const at = start + gap(ctx, m < 2 ? m * 5 * DAY : 30 * DAY + m * 8 * DAY);
      const order = orderBody(rng, member, lines(rng, 2, 100, 500, 'Electronics'), at);
      sendOrder(ctx, order, m >= 2 ? abuse('chargeback ring', 'order', chargebacks[m % 2]) : undefined);
      if (m < 2) chargebacks.push(chargeBack(ctx, order, at + rng.int(10, 20) * DAY));
    }
  }
}

/**
 * The same rings with late feedback, as chargebacks really arrive: a wave of orders within a week,
 * every one charged back 30-60 days later, so none of the wave can see its siblings' chargebacks;
 * then a second wave on the same cards and devices after the chargebacks have landed.
 */
export function lateFeedbackRings(ctx: EvalContext, rings: number) {
  const { rng } = ctx;
  const pattern = 'chargeback ring, late feedback';
  for (let r = 0; r < rings; r++) {
    const cards = Array.from({ length: 2 }, () => newShopper(rng).card);
    const devices = Array.from({ length: 2 }, () => rng.id('ring-device'));
    const start = patternStart(ctx, rng.int(150, 250) * DAY);
    const members: { pair: number; order: OrderBody; at: number; chargeback?: number }[] = [];
    for (let m = 0; m < 9; m++) {
      const member = onStolenCard(rng, newShopper(rng, { card: cards[m % 2]!, device: devices[m % 2]! }));
      const at = start + gap(ctx, m < 6 ? rng.int(0, 7 * DAY) : rng.int(70, 90) * DAY);
      const order = orderBody(rng, member, lines(rng, 2, 100, 500, 'Electronics'), at);
      const chargeback = m < 6 ? chargeBack(ctx, order, at + rng.int(30, 60) * DAY) : undefined;
      members.push({ pair: m % 2, order, at, ...(chargeback === undefined ? {} : { chargeback }) });
    }
    // The first wave arrives in any order within its week, so the ring's first act on a card and
    // device is whichever order comes first there (it has nothing behind it, like every pattern's
    // unscored first act), not the member drawn first.
    for (const { pair, order, at } of members) {
      const earlier = members.filter((other) => other.pair === pair && other.at < at);
      const chargebacks = earlier.flatMap((other) => other.chargeback ?? []);
      sendOrder(
        ctx,
        order,
        earlier.length === 0 ? undefined : abuse(pattern, 'order', evidenceOnce(chargebacks, 1)),
      );
    }
  }
}

function chargeBack(ctx: EvalContext, order: OrderBody, at: number) {
  ctx.send(
    at,
    `/v1/order/dispute/${order.providerOrderId}`,
    disputeBody(ctx.rng, Number(order.totalPrice.amount), 'LOST', at),
  );
  return at;
}

/**
 * New-account burst: a bot wave opens accounts within minutes on one or two shared devices, each
 * with a fresh, ordinary-looking e-mail and its own card, and orders seconds after signing up. The
 * first signup of a wave has nothing behind it; its order already shows the bot's speed. The cards
 * are stolen: most cardholders dispute the charge weeks later (the feedback a merchant really gets;
 * without it, training would read the bots' orders as good ones).
 */
export function newAccountBursts(ctx: EvalContext, waves: number) {
  const { rng } = ctx;
  const pattern = 'new-account burst';
  for (let w = 0; w < waves; w++) {
    const devices = Array.from({ length: rng.int(1, 2) }, () => rng.id('bot-device'));
    const address = rng.chance(0.5) ? newShopper(rng).address : undefined;
    let at = patternStart(ctx, rng.int(2, 300) * DAY);
    const accounts = rng.int(5, 8);
    for (let n = 0; n < accounts; n++) {
      const device = rng.pick(devices);
      const account = onStolenCard(
        rng,
        newShopper(rng, { device, ...(address ? { address } : {}) }),
        BURST_ADDRESSES,
      );
      const body = signup(ctx, account, device, at);
      ctx.send(at, '/v1/evaluate/signup', body, n >= 1 ? abuse(pattern, 'signup') : undefined);
      const ordered = at + rng.int(1, 20) * SECOND;
      const order = orderBody(rng, account, lines(rng, 1, 80, 400, 'Electronics'), ordered, device);
      sendOrder(ctx, order, abuse(pattern, 'order'));
      if (rng.chance(0.8)) {
        const filed = ordered + rng.int(20, 60) * DAY;
        if (filed < endOf(ctx)) chargeBack(ctx, order, filed);
      }
      at += gap(ctx, rng.int(20, 240) * SECOND);
    }
  }
}

/**
 * How one person names the accounts he opens after his first for a bonus or a higher limit: his own
 * name again (nothing checks it), a variation of it (a nickname, an initial), or a made-up name.
 */
const MULTI_ACCOUNT_NAMES: NamedAfter = { same: 0.4, variant: 0.3 };

/** Multi-accounting: one device opening account after account, hours to days apart. */
export function multiAccounting(ctx: EvalContext, devices: number) {
  const { rng } = ctx;
  for (let d = 0; d < devices; d++) {
    const device = rng.id('farm-device');
    let at = patternStart(ctx, rng.int(15, 300) * DAY);
    /** The person behind the device: his first account carries his own name. */
    let owner: Shopper | undefined;
    for (let n = 0; n < 5; n++) {
      const drawn = newShopper(rng);
      const account = owner
        ? namedAfter(rng, drawn, owner, MULTI_ACCOUNT_NAMES, MULTI_ACCOUNT_ADDRESSES, owner.email)
        : drawn;
      owner ??= account;
      const body = signup(ctx, account, device, at);
      ctx.send(at, '/v1/evaluate/signup', body, n >= 1 ? abuse('multi-accounting', 'signup') : undefined);
      at += gap(ctx, rng.int(2, 48) * HOUR);
    }
  }
}

/**
 * How a self-referrer names his referees: referral programs refuse a referee with the referrer's
 * name, so mostly a relative's (his surname, another first name: a spouse or a child, real or not)
 * or a made-up one; a few only vary his own.
 */
const REFEREE_NAMES: NamedAfter = { variant: 0.2, relative: 0.4 };

/** Self-referral: referees signing up from the referrer's own device to collect the bonus. */
export function selfReferral(ctx: EvalContext, referrers: number) {
  const { rng } = ctx;
  for (let r = 0; r < referrers; r++) {
    const referrer = newShopper(rng);
    const joined = patternStart(ctx, rng.int(10, 300) * DAY);
    ctx.send(joined, '/v1/evaluate/signup', signup(ctx, referrer, referrer.device, joined));
    for (let n = 0; n < 2; n++) {
      const at = joined + gap(ctx, rng.int(1, 72) * HOUR);
      const referee = namedAfter(
        rng,
        newShopper(rng),
        referrer,
        REFEREE_NAMES,
        REFEREE_ADDRESSES,
        referrer.email,
      );
      const body = signup(ctx, referee, referrer.device, at, referrer.customerId);
      ctx.send(at, '/v1/evaluate/signup', body, abuse('self-referral', 'signup'));
    }
  }
}

/** Credential stuffing: one device trying many accounts with leaked passwords, within minutes. */
export function credentialStuffing(ctx: EvalContext, victims: readonly Shopper[], devices: number) {
  const { rng } = ctx;
  for (let d = 0; d < devices; d++) {
    const device = rng.id('stuffing-device');
    // Days before the end at most: its victims' accounts are older (ago, not patternStart).
    let at = ago(ctx, rng.int(1, 15) * DAY);
    for (let n = 0; n < 25; n++) {
      const victim = rng.pick(victims);
      const body = loginBody(victim, device, rng.chance(0.08), at);
      ctx.send(at, '/v1/evaluate/login', body, n >= 3 ? abuse('credential stuffing', 'login') : undefined);
      at += gap(ctx, rng.int(2, 20) * SECOND);
    }
  }
}

/** Account takeover: failures then a success from a new device, then the payout is redirected. */
export function accountTakeover(ctx: EvalContext, victims: readonly Shopper[]) {
  const { rng } = ctx;
  for (const victim of victims) {
    const device = rng.id('ato-device');
    let at = ago(ctx, rng.int(1, 15) * DAY);
    for (let n = rng.int(4, 10); n > 0; n--) {
      ctx.send(at, '/v1/evaluate/login', loginBody(victim, device, false, at));
      at += gap(ctx, rng.int(10, 60) * SECOND);
    }
    ctx.send(
      at,
      '/v1/evaluate/login',
      loginBody(victim, device, true, at),
      abuse('account takeover', 'login'),
    );
    at += gap(ctx, rng.int(30, 600) * SECOND);
    const change = rng.pick(['PAYOUT_CHANGE', 'PAYOUT_ADD']);
    ctx.send(
      at,
      '/v1/evaluate/account',
      accountBody(victim, change, device, at),
      abuse('account takeover', 'account'),
    );
  }
}

/**
 * Abuse that comes back through a linked identity after it was confirmed: a fraudster's order on a
 * stolen card is charged back (LOST, fraud), and days after the chargeback, before a retraining can
 * learn anything from it, the ring comes back with new e-mails on the same card (`linked card`) or
 * with new cards on the same device (`linked device`).
 */
export function linkedAfterChargeback(ctx: EvalContext, rings: number) {
  const { rng } = ctx;
  for (let r = 0; r < rings; r++) {
    const fraudster = onStolenCard(rng, newShopper(rng));
    const ordered = patternStart(ctx, rng.int(40, 330) * DAY);
    const first = orderBody(rng, fraudster, lines(rng, 1, 150, 600, 'Electronics'), ordered);
    sendOrder(ctx, first);
    const filed = ordered + rng.int(10, 25) * DAY;
    chargeBack(ctx, first, filed);
    for (let k = rng.int(2, 3); k > 0; k--) {
      const member = onStolenCard(rng, newShopper(rng, { card: fraudster.card }));
      const at = clampToEnd(ctx, filed + gap(ctx, rng.int(2, 10) * DAY + rng.int(0, DAY)), HOUR);
      const order = orderBody(rng, member, lines(rng, 1, 100, 500, 'Electronics'), at);
      sendOrder(ctx, order, abuse('linked card after chargeback', 'order'));
    }
    for (let k = rng.int(2, 3); k > 0; k--) {
      const member = onStolenCard(rng, newShopper(rng, { device: fraudster.device }));
      const at = clampToEnd(ctx, filed + gap(ctx, rng.int(2, 10) * DAY + rng.int(0, DAY)), HOUR);
      const order = orderBody(rng, member, lines(rng, 1, 100, 500, 'Electronics'), at);
      sendOrder(ctx, order, abuse('linked device after chargeback', 'order'));
    }
  }
}

/**
 * Who comes back after an empty box on the abuser's own card, device or address: the abuser under a
 * new e-mail with his own name (the refund goes to his card, the parcel to his door), a relative's
 * account (his surname), or a made-up name.
 */
const COMEBACK_NAMES: NamedAfter = { same: 0.4, relative: 0.3 };

/**
 * Returns from new e-mails on the card, device or address of an empty-box return, ordered days after
 * the warehouse reported the empty box (and before a retraining could learn from it).
 */
export function linkedAfterEmptyBox(ctx: EvalContext, count: number) {
  const { rng } = ctx;
  const links = ['card', 'device', 'address'] as const;
  for (let i = 0; i < count; i++) {
    const abuser = newShopper(rng);
    const ordered = patternStart(ctx, rng.int(40, 330) * DAY);
    const order = orderBody(rng, abuser, lines(rng, 1, 200, 900, 'Electronics'), ordered);
    sendOrder(ctx, order);
    const returnedAt = ordered + rng.int(3, 8) * DAY;
    const returned = returnBody(rng, order, returnedAt, abuser.device);
    ctx.send(returnedAt, '/v1/return', returned);
    const inspected = returnedAt + rng.int(2, 7) * DAY;
    ctx.send(
      inspected,
      `/v1/return/disposition/${returned.providerReturnId}`,
      dispositionBody(returned, 'EMPTY_BOX', 'REMOVE_SUSPECT_ABUSE'),
    );
    const link = links[i % links.length]!;
    const accomplice = namedAfter(
      rng,
      newShopper(rng, { [link]: abuser[link] }),
      abuser,
      COMEBACK_NAMES,
      COMEBACK_ADDRESSES,
      abuser.email,
    );
    const at = clampToEnd(ctx, inspected + gap(ctx, rng.int(1, 5) * DAY), 10 * DAY);
    const next = orderBody(rng, accomplice, lines(rng, 1, 200, 900, 'Electronics'), at);
    sendOrder(ctx, next);
    const back = clampToEnd(ctx, at + rng.int(3, 6) * DAY, HOUR);
    ctx.send(
      back,
      '/v1/return',
      returnBody(rng, next, back, accomplice.device),
      abuse('linked identity after empty box', 'return'),
    );
  }
}

/**
 * Repeat wardrobing, cycle after cycle: an item bought, worn and returned used days later, every few
 * weeks, between orders the customer keeps; the warehouse flags repeated use most of the time, not
 * always. From the third cycle on the returns are abuse.
 */
export function repeatWardrobing(ctx: EvalContext, count: number) {
  const { rng } = ctx;
  for (let i = 0; i < count; i++) {
    const shopper = newShopper(rng);
    let at = patternStart(ctx, rng.int(150, 250) * DAY);
    const verdicts: number[] = [];
    for (let cycle = 0; cycle < 6; cycle++) {
      const kept = orderBody(rng, shopper, lines(rng, 1, 20, 80), at - rng.int(1, 6) * DAY);
      sendOrder(ctx, kept);
      const order = orderBody(rng, shopper, lines(rng, 1, 80, 400, rng.pick(['Apparel', 'Electronics'])), at);
      sendOrder(ctx, order);
      const back = clampToEnd(ctx, at + rng.int(3, 7) * DAY, HOUR);
      const returned = returnBody(rng, order, back, shopper.device);
      const label = cycle >= 2 ? abuse('repeat wardrobing', 'return', evidenceOnce(verdicts, 2)) : undefined;
      ctx.send(back, '/v1/return', returned, label);
      const condition = rng.chance(0.7) ? 'LIGHTLY_USED' : 'HEAVILY_USED';
      verdicts.push(
        inspect(ctx, returned, condition, warehouseOutcome(returned, condition, cycle >= 1, 'REFURBISH')),
      );
      at += gap(ctx, rng.int(14, 30) * DAY);
    }
  }
}

/**
 * The address an attacker moves a taken-over account to (a look-alike of the victim's, or a
 * throwaway), at a provider fixed by the victim and the time: his own inbox, not the victim's.
 */
const attackerAddress = (rng: SeededRandom, victim: Shopper, at: number) => {
  const key = `${victim.mailbox.handle}:taken-over:${at}`;
  const mailbox = { handle: key, provider: otherProvider(victim.mailbox.provider, key) };
  // A throwaway carries nothing of the victim's: its initials, if any, are the attacker's.
  return issueAddress(rng, mailbox, personName(key), {
    habits: TAKEOVER_ADDRESSES,
    earlier: victim.email,
  });
};

/**
 * Account changes right after a takeover: the attacker gets in from a new device (after failed
 * attempts, or at once with a phished password) and within minutes changes what lets him keep the
 * account or its money: e-mail, phone, MFA, payout.
 */
export function takeoverAccountChanges(ctx: EvalContext, victims: readonly Shopper[]) {
  const { rng } = ctx;
  const pattern = 'account changes after takeover';
  for (const victim of victims) {
    const device = rng.id('ato-device');
    // Every good shopper joined at least 20 days before the end: the takeover comes after, on an
    // account with history of its own.
    let at = ago(ctx, rng.int(1, 19) * DAY);
    for (let n = rng.chance(0.5) ? rng.int(2, 6) : 0; n > 0; n--) {
      ctx.send(at, '/v1/evaluate/login', loginBody(victim, device, false, at));
      at += gap(ctx, rng.int(10, 60) * SECOND);
    }
    ctx.send(at, '/v1/evaluate/login', loginBody(victim, device, true, at));
    for (let c = rng.int(1, 3); c > 0; c--) {
      at += gap(ctx, rng.int(30, 900) * SECOND);
      const change = rng.pick(['EMAIL_CHANGE', 'PHONE_CHANGE', 'MFA_DISABLE', 'PAYOUT_CHANGE', 'PAYOUT_ADD']);
      const newValue = change === 'EMAIL_CHANGE' ? attackerAddress(rng, victim, at) : undefined;
      ctx.send(
        at,
        '/v1/evaluate/account',
        accountBody(victim, change, device, at, newValue),
        abuse(pattern, 'account'),
      );
    }
  }
}

/**
 * Honest look-alikes of the linked-identity patterns and of wardrobing:
 * - households with long shared history: one member's chargeback coded fraud (a purchase the
 *   cardholder did not know of) watch-lists the family's device and address, and the other members,
 *   who have ordered on them for months, keep ordering;
 * - gift shippers: orders shipped to other people's addresses (billing and shipping differ), some of
 *   them shared with other customers;
 * - customers who return a lot but keep most: several items an order, one or two sent back unused.
 */
export function linkedLookAlikes(
  ctx: EvalContext,
  counts: { households: number; giftShippers: number; keepMost: number },
) {
  const { rng, now } = ctx;
  const { households } = ctx.params;
  for (let h = 0; h < counts.households; h++) {
    const first = newShopper(rng);
    const family = [
      first,
      ...Array.from({ length: households ? rng.int(...households.members) - 1 : rng.int(1, 2) }, () =>
        householdMember(
          rng,
          newShopper(rng, { device: first.device, address: first.address }),
          first,
          FAMILY_SURNAME_SHARE,
        ),
      ),
    ];
    const start = ago(ctx, rng.int(200, 330) * DAY);
    const cohort = 'household with long shared history';
    const disputed = orderBody(rng, first, lines(rng, 1, 40, 250), start);
    const filed = start + rng.int(60, 90) * DAY;
    // Members join the family's device weeks apart, all before the dispute (60-90 days in), each
    // ordering now and then since: months of shared history when the device is watch-listed.
    let joined = start;
    const history = family.flatMap((member, m) => {
      // Nominally a draw for every member (the first's is multiplied by 0): the stream stays as it was.
      if (!households) joined = start + m * rng.int(10, 25) * DAY;
      else if (m > 0) joined += logUniform(rng, households.joinGap);
      // The first order on the day the member joins; the others spread over the months since.
      return Array.from({ length: rng.int(3, 5) }, (_, i) =>
        orderBody(
          rng,
          member,
          lines(rng, rng.int(1, 3), 15, 250),
          joined + (i === 0 ? 0 : rng.int(0, Math.max(0, 150 - 50 * m)) * DAY) + rng.int(0, DAY),
        ),
      );
    });
    const byDisputer = (order: OrderBody) =>
      order.customer.contactInformation.some((c) => c.contactType === 'EMail' && c.address === first.email);
    reissueCard(history.filter(byDisputer), filed, disputed.providerOrderId);
    sendOrder(ctx, disputed);
    // The member who disputed is left out after the dispute: friendly fraud or not, that is his call.
    for (const order of history) {
      const unjudged = byDisputer(order) && Number(order.timestamp) > filed;
      sendOrder(ctx, order, unjudged ? undefined : good('order', cohort));
    }
    ctx.send(
      filed,
      `/v1/order/dispute/${disputed.providerOrderId}`,
      disputeBody(rng, Number(disputed.totalPrice.amount), 'LOST', filed),
    );
    for (const member of family.slice(1)) {
      for (let o = rng.int(2, 3); o > 0; o--) {
        const at = clampToEnd(ctx, filed + rng.int(1, 40) * DAY + rng.int(0, DAY), HOUR);
        const order = orderBody(rng, member, lines(rng, rng.int(1, 3), 15, 250), at);
        sendOrder(ctx, order, good('order', cohort));
      }
    }
  }
  const recipients = Array.from({ length: 8 }, () => newShopper(rng).address);
  for (let g = 0; g < counts.giftShippers; g++) {
    const shopper = newShopper(rng);
    const joined = ago(ctx, rng.int(60, 330) * DAY);
    for (let o = rng.int(3, 6); o > 0; o--) {
      const at = joined + lifeGap(ctx, rng.int(0, 50) * DAY + rng.int(0, DAY));
      const order = orderBody(rng, shopper, lines(rng, rng.int(1, 2), 20, 150), at);
      const shipping = order.customer.contactInformation.find(
        (c) => c.contactType === 'ContactAddress' && c.addressType === 'Shipping',
      );
      if (shipping && 'address' in shipping && typeof shipping.address === 'object')
        shipping.address = rng.pick(recipients);
      sendOrder(ctx, order, good('order', 'gift shipper'));
    }
  }
  for (let k = 0; k < counts.keepMost; k++) {
    const shopper = newShopper(rng);
    let at = ago(ctx, rng.int(150, 330) * DAY);
    // Orders until the timeline's end: a return is never sent before its order.
    for (let o = rng.int(4, 6); o > 0 && at < now - 6 * DAY; o--) {
      const order = orderBody(rng, shopper, lines(rng, rng.int(3, 5), 20, 150, 'Apparel'), at);
      sendOrder(ctx, order, good('order', 'returns a lot, keeps most'));
      const back = clampToEnd(ctx, at + rng.int(5, 15) * DAY, HOUR);
      const returned = returnBody(rng, order, back, shopper.device);
      returned.returnedLineItems = returned.returnedLineItems.slice(0, rng.int(1, 2));
      ctx.send(back, '/v1/return', returned, good('return', 'returns a lot, keeps most'));
      inspect(ctx, returned, rng.pick(['NEW', 'OPEN_BOX']), 'RESTOCK');
      at += rng.int(15, 40) * DAY;
    }
  }
}
