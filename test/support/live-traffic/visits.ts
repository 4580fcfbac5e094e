import type { SeededRandom } from '../../../eval/random.ts';
import {
  accountBody,
  dispositionBody,
  disputeBody,
  loginBody,
  orderBody,
  orderTotal,
  returnBody,
  signupBody,
} from './bodies.ts';
import { type BasketLine, basket } from './catalog.ts';
import type { Delivery, EventKind } from './delivery.ts';
import { type Address, type Company, type People, type Person, weighted } from './people.ts';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface PlacedOrder {
  providerOrderId: string;
  person: Person;
  lines: readonly BasketLine[];
  total: number;
  placedAt: number;
  device?: string;
  bracketed: boolean;
  returned: boolean;
}

interface ShopOptions {
  /** Nothing is sent at or after this time (follow-ups later than it never happen here). */
  end: number;
  /** Events before this time are history (every one dated, for an import); from it on, live. */
  liveFrom: number;
}

/**
 * What honest customers do on the shop, written as the requests its integration sends: sign up (at
 * checkout, minutes before ordering, or after a friend or colleague told them), log in (with typos,
 * forgotten passwords, new phones), order (as guests too, gifts, parcel lockers, two sizes), return,
 * and the warehouse's and the bank's feedback afterwards.
 */
export class ShopTraffic {
  readonly deliveries: Delivery[] = [];
  readonly orders: PlacedOrder[] = [];
  /** People with an account on the shop, whether or not we saw them sign up. */
  readonly accounts: Person[] = [];
  private nextOrder = 1_000_001;
  private nextReturn = 500_001;

  readonly rng: SeededRandom;
  readonly people: People;
  private readonly options: ShopOptions;

  constructor(rng: SeededRandom, people: People, options: ShopOptions) {
    this.rng = rng;
    this.people = people;
    this.options = options;
  }

  get end(): number {
    return this.options.end;
  }

  /** Customers who had accounts before the shop started sending us anything. */
  existingCustomers(count: number): Person[] {
    const pool = Array.from({ length: count }, () => {
      const person = this.people.person();
      return { ...person, customerId: this.people.existingCustomerId() };
    });
    this.accounts.push(...pool);
    return pool;
  }

  /**
   * A new customer signs up; some at checkout (an order 2-15 minutes later, same device), some come
   * back later in the period to log in and shop.
   */
  newCustomer(
    person: Person,
    at: number,
    cohort: string,
    options: { device?: string; checkout?: number } = {},
  ) {
    const device = options.device ?? (this.rng.chance(0.88) ? person.devices[0] : undefined);
    this.signUp(person, at, cohort, device);
    if (this.rng.chance(options.checkout ?? 0.2)) {
      this.order(person, at + this.rng.int(2 * MINUTE, 15 * MINUTE), `${cohort}:checkout`, { device });
    }
    const comebacks = this.rng.chance(0.25) ? this.rng.int(1, 2) : 0;
    for (let i = 0; i < comebacks; i++) {
      this.returningVisit(person, this.laterTime(at + HOUR, 10 * DAY), `${cohort}:comeback`);
    }
  }

  signUp(person: Person, at: number, cohort: string, device: string | undefined) {
    this.accounts.push(person);
    const body = signupBody(person, {
      ...this.dated(at),
      ...(device ? { device } : {}),
      withPhone: this.rng.chance(0.45),
      withAddress: this.rng.chance(0.55),
      ...(this.rng.chance(0.04) && this.accounts.length > 20
        ? { referrerID: this.rng.pick(this.accounts.slice(0, -1)).customerId }
        : {}),
    });
    this.send(at, 'signup', body, cohort);
  }

  /**
   * A customer with an account comes back: logs in (now and then after a typo, a forgotten password,
   * or on a new phone), then maybe orders, changes something on the account, or starts a return.
   */
  returningVisit(person: Person, at: number, cohort: string) {
    const { device, loggedInAt } = this.logIn(person, at, cohort);
    if (this.rng.chance(0.45)) {
      this.order(person, loggedInAt + this.rng.int(3 * MINUTE, 40 * MINUTE), cohort, { device });
    }
    if (this.rng.chance(0.1)) {
      this.accountChange(person, loggedInAt + this.rng.int(1 * MINUTE, 20 * MINUTE), cohort, device);
    }
  }

  /** Returns the device used and the time of the successful attempt. */
  logIn(person: Person, at: number, cohort: string): { device: string | undefined; loggedInAt: number } {
    const draw = this.rng.next();
    const authType = weighted(this.rng, [
      ['password', 78],
      ['oauth', 10],
      ['magic_link', 5],
      ['passkey', 5],
      ['sso', 2],
    ] as const);
    const mfa =
      authType === 'password' && this.rng.chance(0.2)
        ? weighted(this.rng, [
            ['app_authenticator', 50],
            ['sms', 35],
            ['email', 15],
          ] as const)
        : undefined;
    let device = this.rng.chance(0.08)
      ? undefined
      : this.rng.chance(0.75)
        ? person.devices[0]
        : this.rng.pick(person.devices);
    let success = at;
    if (draw < 0.04) {
      // A new phone: the first login on it, often confirmed by a code; sometimes a new number too.
      device = this.people.device();
      person.devices.unshift(device);
      this.sendLogin(person, at, `${cohort}:new-phone`, {
        success: true,
        device,
        authType,
        mfa: authType === 'password' ? (mfa ?? 'sms') : undefined,
      });
      if (this.rng.chance(0.15)) {
        const phone = this.people.phone(person.home.country);
        person.phone = phone;
        this.sendAccount(person, at + this.rng.int(2 * MINUTE, 15 * MINUTE), `${cohort}:new-phone`, {
          changeType: 'PHONE_CHANGE',
          newValue: phone,
          device,
        });
      }
      return { device, loggedInAt: at };
    }
    if (draw < 0.13 && authType === 'password') {
      // Typos: one or two failures seconds apart, then the right password.
      const typos = this.rng.chance(0.7) ? 1 : 2;
      let t = at;
      for (let i = 0; i < typos; i++) {
        this.sendLogin(person, t, `${cohort}:typo`, { success: false, device, authType });
        t += this.rng.int(4 * SECOND, 40 * SECOND);
      }
      success = t;
      this.sendLogin(person, success, `${cohort}:typo`, { success: true, device, authType, mfa });
      return { device, loggedInAt: success };
    }
    if (draw < 0.15) {
      // The wrong e-mail first (no account has it), then the right one.
      const [local, domain] = person.email.split('@') as [string, string];
      const slip = this.rng.int(1, local.length - 1);
      const attempted = `${local.slice(0, slip)}${local.slice(slip + 1)}@${domain}`;
      this.sendLogin(person, at, `${cohort}:wrong-username`, {
        success: false,
        device,
        authType: 'password',
        providerCustomerId: attempted,
      });
      success = at + this.rng.int(10 * SECOND, 60 * SECOND);
      this.sendLogin(person, success, `${cohort}:wrong-username`, {
        success: true,
        device,
        authType: 'password',
      });
      return { device, loggedInAt: success };
    }
    if (draw < 0.17) {
      // Forgot the password: a few failures, a reset by e-mail link, then in.
      let t = at;
      for (let i = 0, n = this.rng.int(2, 3); i < n; i++) {
        this.sendLogin(person, t, `${cohort}:password-reset`, {
          success: false,
          device,
          authType: 'password',
        });
        t += this.rng.int(8 * SECOND, 45 * SECOND);
      }
      t += this.rng.int(2 * MINUTE, 6 * MINUTE);
      this.sendAccount(person, t, `${cohort}:password-reset`, { changeType: 'PASSWORD_CHANGE', device });
      success = t + this.rng.int(20 * SECOND, 90 * SECOND);
      this.sendLogin(person, success, `${cohort}:password-reset`, {
        success: true,
        device,
        authType: 'password',
      });
      return { device, loggedInAt: success };
    }
    this.sendLogin(person, at, cohort, { success: true, device, authType, mfa });
    return { device, loggedInAt: success };
  }

  /** A logged-in customer changes something: a new address, card, phone, e-mail or password. */
  accountChange(person: Person, at: number, cohort: string, device: string | undefined) {
    const changeType = weighted(this.rng, [
      ['ADDRESS_ADD', 28],
      ['PAYMENT_METHOD_ADD', 18],
      ['LOYALTY_REDEMPTION', 14],
      ['PASSWORD_CHANGE', 12],
      ['PAYMENT_METHOD_REMOVE', 8],
      ['PHONE_CHANGE', 7],
      ['EMAIL_CHANGE', 5],
      ['MFA_METHOD_CHANGE', 4],
    ] as const);
    let newValue: string | undefined;
    if (changeType === 'PHONE_CHANGE') {
      newValue = this.people.phone(person.home.country);
      person.phone = newValue;
    } else if (changeType === 'EMAIL_CHANGE') {
      // A new mailbox with another provider, same name.
      const fresh = this.people.person({ lastName: person.lastName });
      newValue = `${person.email.split('@')[0]}@${fresh.email.split('@')[1]}`;
      person.email = newValue;
    } else if (changeType === 'PAYMENT_METHOD_ADD') {
      person.cards.unshift(this.people.card());
    } else if (changeType === 'PASSWORD_CHANGE') {
      newValue = 'redacted';
    }
    this.sendAccount(person, at, `${cohort}:account-change`, {
      changeType,
      ...(newValue ? { newValue } : {}),
      device,
    });
  }

  /** An order; shipped home mostly, sometimes a gift, to the office or a parcel locker. */
  order(
    person: Person,
    at: number,
    cohort: string,
    options: { device?: string | undefined; shipTo?: Address } = {},
  ): PlacedOrder | undefined {
    if (at >= this.end) return undefined;
    const bracketed = this.rng.chance(0.08);
    const lines = basket(this.rng, { bracket: bracketed });
    const draw = this.rng.next();
    let shipTo = options.shipTo ?? person.home;
    let recipient: { firstName: string; lastName: string } | undefined;
    if (!options.shipTo) {
      if (draw < 0.09) {
        const friend = this.people.person();
        shipTo = friend.home;
        recipient = { firstName: friend.firstName, lastName: friend.lastName };
      } else if (draw < 0.13) shipTo = this.people.parcelLocker();
      else if (draw < 0.2 && person.office) shipTo = person.office;
    }
    const device = options.device !== undefined && this.rng.chance(0.8) ? options.device : undefined;
    const providerOrderId = `HP${this.nextOrder++}`;
    const total = lines.reduce((sum, l) => sum + l.price * l.quantity, 0);
    const giftCard = this.rng.chance(0.04) ? Math.min(25, Math.floor(total / 2)) : undefined;
    const placedAt = at - this.rng.int(200, 3_000);
    const body = orderBody({
      providerOrderId,
      person,
      lines,
      shipTo,
      card: person.cards[0]!,
      ...(giftCard ? { giftCard } : {}),
      ...(device ? { device } : {}),
      placedAt,
      ...(recipient ? { recipient } : {}),
    });
    this.send(at, 'order', body, cohort);
    const placed: PlacedOrder = {
      providerOrderId,
      person,
      lines,
      total: orderTotal(body),
      placedAt,
      ...(device ? { device } : {}),
      bracketed,
      returned: false,
    };
    this.orders.push(placed);
    this.afterOrder(placed, cohort);
    return placed;
  }

  /** A guest: no account, straight to checkout, on whatever device they have. */
  guestOrder(person: Person, at: number, cohort: string) {
    this.order(person, at, cohort, { device: this.rng.chance(0.85) ? person.devices[0] : undefined });
  }

  /** Returns (most within two weeks, a few the same day), their inspection, and the odd dispute. */
  private afterOrder(order: PlacedOrder, cohort: string) {
    const draw = this.rng.next();
    if (order.bracketed ? draw < 0.7 : draw < 0.14) {
      const sameDay = this.rng.chance(0.08);
      const delay = sameDay ? this.rng.int(1 * HOUR, 8 * HOUR) : this.rng.int(2 * DAY, 14 * DAY);
      this.returnOrder(order, order.placedAt + delay, cohort);
    }
    const dispute = this.rng.next();
    if (dispute < 0.008) this.disputeNotReceived(order, cohort);
    else if (dispute < 0.012) this.disputeUnrecognised(order, cohort);
  }

  /** The customer returns some of an order's lines (the size that did not fit, if two were bought). */
  returnOrder(order: PlacedOrder, at: number, cohort: string) {
    if (order.returned || at >= this.end) return;
    order.returned = true;
    const lines = order.bracketed
      ? [this.rng.pick(order.lines)]
      : order.lines.filter((_, i) => i === 0 || this.rng.chance(0.4));
    const method = weighted(this.rng, [
      ['Drop-Off', 60],
      ['Pickup', 15],
      ['In-Store', 25],
    ] as const);
    const refund = order.bracketed
      ? 'EXCHANGE'
      : weighted(this.rng, [
          ['ORIGINAL_PAYMENT', 78],
          ['STORE_CREDIT', 10],
          ['EXCHANGE', 12],
        ] as const);
    const [reason, itemReason] = order.bracketed
      ? ['Ordered two sizes', this.rng.pick(['Too small', 'Too large'])]
      : this.rng.pick([
          ['Changed my mind', 'No longer needed'],
          ['Did not fit', 'Too small'],
          ['Did not fit', 'Too large'],
          ['Not as expected', 'Colour differs from photo'],
          ['Arrived damaged', 'Damaged in transit'],
          ['Better price elsewhere', 'Found cheaper'],
        ] as const);
    const device =
      method === 'In-Store' || this.rng.chance(0.25) ? undefined : (order.device ?? order.person.devices[0]);
    const providerReturnId = `RMA${this.nextReturn++}`;
    const body = returnBody({
      providerReturnId,
      providerOrderId: order.providerOrderId,
      lines,
      reason,
      itemReason,
      method,
      refund,
      ...(device ? { device } : {}),
      at: at - this.rng.int(200, 3_000),
    });
    this.send(at, 'return', body, `${cohort}:return`);
    if (this.rng.chance(0.85)) {
      const damaged = itemReason === 'Damaged in transit';
      const condition = damaged
        ? 'DAMAGED_ITEM'
        : weighted(this.rng, [
            ['NEW', 50],
            ['OPEN_BOX', 38],
            ['LIGHTLY_USED', 10],
            ['LOST_ITEM', 2],
          ] as const);
      const outcome: Record<string, string> = {
        NEW: 'RESTOCK',
        OPEN_BOX: this.rng.chance(0.7) ? 'RESTOCK' : 'RESTOCK - SALE/CLEARANCE',
        LIGHTLY_USED: this.rng.chance(0.5) ? 'RESTOCK - SALE/CLEARANCE' : 'REFURBISH',
        DAMAGED_ITEM: this.rng.pick(['REFURBISH', 'LIQUIDATE', 'RECYCLED']),
        LOST_ITEM: 'REMOVE_OTHERS',
      };
      this.send(
        at + this.rng.int(2 * DAY, 8 * DAY),
        'disposition',
        dispositionBody(lines, {
          condition,
          outcome: outcome[condition]!,
          warehouse: this.rng.pick(['wh-reno-1', 'wh-columbus-2']),
          ...(condition === 'NEW' ? { note: 'Tags attached' } : {}),
        }),
        `${cohort}:disposition`,
        { pathId: providerReturnId, idempotencyKey: true },
      );
    }
  }

  /**
   * Returns from recent orders not yet returned, at `count` a day's worth: what a busy day adds to
   * the returns desk (the mix stays the same when everything is ten times as busy).
   */
  returnsOfRecentOrders(from: number, to: number, count: number, cohort: string, since: number) {
    const candidates = this.orders.filter((o) => !o.returned && o.placedAt >= since && o.placedAt < from);
    for (let i = 0; i < count && candidates.length > 0; i++) {
      const [order] = candidates.splice(this.rng.int(0, candidates.length - 1), 1);
      const at = Math.round(from + this.rng.next() * (to - from));
      if (this.rng.chance(0.5)) {
        const { loggedInAt } = this.logIn(order!.person, at - this.rng.int(1 * MINUTE, 5 * MINUTE), cohort);
        this.returnOrder(order!, Math.max(at, loggedInAt + MINUTE), cohort);
      } else this.returnOrder(order!, at, cohort);
    }
  }

  /** Item not received: the parcel was late; the merchant shows delivery and wins. */
  private disputeNotReceived(order: PlacedOrder, cohort: string) {
    const disputeId = `dp_${this.rng.id('inr')}`;
    const opened = order.placedAt + this.rng.int(4 * DAY, 9 * DAY);
    const responded = opened + this.rng.int(1 * DAY, 2 * DAY);
    const won = responded + this.rng.int(3 * DAY, 10 * DAY);
    const amount = order.total;
    const base = { disputeId, type: 'CHARGEBACK', reason: 'INR', amount } as const;
    this.send(opened, 'dispute', disputeBody({ ...base, status: 'OPEN', at: opened }), `${cohort}:dispute`, {
      pathId: order.providerOrderId,
      idempotencyKey: true,
    });
    for (const [status, at] of [
      ['RESPONDED', responded],
      ['WON', won],
    ] as const) {
      this.send(at, 'dispute', disputeBody({ ...base, status, at }), `${cohort}:dispute`, {
        pathId: order.providerOrderId,
        idempotencyKey: true,
      });
    }
  }

  /** The cardholder did not recognise the descriptor on the statement: an inquiry, answered and won. */
  private disputeUnrecognised(order: PlacedOrder, cohort: string) {
    const disputeId = `dp_${this.rng.id('inq')}`;
    const opened = order.placedAt + this.rng.int(3 * DAY, 12 * DAY);
    const base = {
      disputeId,
      type: 'INQUIRY',
      reason: 'UNAUTH',
      subreason: 'Cardholder does not recognise transaction',
      amount: order.total,
    } as const;
    this.send(opened, 'dispute', disputeBody({ ...base, status: 'OPEN', at: opened }), `${cohort}:dispute`, {
      pathId: order.providerOrderId,
      idempotencyKey: true,
    });
    const won = opened + this.rng.int(2 * DAY, 6 * DAY);
    this.send(won, 'dispute', disputeBody({ ...base, status: 'WON', at: won }), `${cohort}:dispute`, {
      pathId: order.providerOrderId,
      idempotencyKey: true,
    });
  }

  /** A household: the first member signs up, the others follow on the family tablet within the day. */
  household(members: readonly Person[], at: number, cohort = 'household') {
    const tablet = members[0]!.devices.at(-1)!;
    let t = at;
    for (const member of members) {
      this.newCustomer(member, t, cohort, { device: this.rng.chance(0.7) ? tablet : member.devices[0] });
      t += this.rng.int(2 * MINUTE, 6 * HOUR);
    }
  }

  /** Colleagues sign up within one hour after the deal is shared in the team chat, each on their own laptop. */
  colleagues(company: Company, count: number, hourStart: number, cohort = 'colleagues') {
    for (let i = 0; i < count; i++) {
      const person = this.people.colleague(company);
      this.newCustomer(person, hourStart + this.rng.int(0, HOUR - 1), cohort, { checkout: 0.25 });
    }
  }

  /** A time in [from, from + span), never past the end. */
  laterTime(from: number, span: number): number {
    return from + this.rng.int(0, span);
  }

  private sendLogin(
    person: Person,
    at: number,
    cohort: string,
    attempt: {
      success: boolean;
      device: string | undefined;
      authType: 'password' | 'sso' | 'magic_link' | 'passkey' | 'oauth';
      mfa?: 'app_authenticator' | 'sms' | 'email' | undefined;
      providerCustomerId?: string;
    },
  ) {
    const body = loginBody(person, {
      providerCustomerId: attempt.providerCustomerId ?? person.customerId,
      success: attempt.success,
      ...(attempt.device ? { device: attempt.device } : {}),
      authType: attempt.authType,
      ...(attempt.mfa && attempt.success ? { mfa: attempt.mfa } : {}),
      ...this.dated(at),
    });
    this.send(at, 'login', body, cohort, { idempotencyKey: true });
  }

  private sendAccount(
    person: Person,
    at: number,
    cohort: string,
    change: { changeType: string; newValue?: string; device: string | undefined },
  ) {
    const body = accountBody(person, {
      changeType: change.changeType,
      ...(change.newValue ? { newValue: change.newValue } : {}),
      ...(change.device ? { device: change.device } : {}),
      at: at - this.rng.int(100, 2_000),
    });
    this.send(at, 'account', body, cohort, { idempotencyKey: true });
  }

  /**
   * The optional time of a signup or login: history always has it; live, the web integration sends
   * none (the service dates it on arrival) and the app's backend sends it, a moment before arrival.
   */
  private dated(at: number): { at?: number } {
    if (at < this.options.liveFrom) return { at };
    return this.rng.chance(0.25) ? { at: at - this.rng.int(100, 2_000) } : {};
  }

  private send(
    at: number,
    kind: EventKind,
    body: object,
    cohort: string,
    extra: { pathId?: string; idempotencyKey?: boolean } = {},
  ) {
    if (at >= this.end) return;
    if (!Number.isInteger(at)) throw new Error(`${kind} at ${at}: times are whole milliseconds`);
    this.deliveries.push({
      at,
      kind,
      body,
      ...(extra.pathId ? { pathId: extra.pathId } : {}),
      ...(extra.idempotencyKey ? { idempotencyKey: this.rng.id('idem') } : {}),
      cohort,
      seq: this.deliveries.length,
    });
  }
}
