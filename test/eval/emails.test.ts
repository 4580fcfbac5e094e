import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BURST_FORMS,
  type Form,
  type FormShares,
  HANDLE_WORDS,
  LARGE_PROVIDERS,
  letters,
  MULTI_ACCOUNT_ADDRESSES,
  PERSONAL_FORMS,
  REFEREE_ADDRESSES,
  RING_FORMS,
  TAKEOVER_ADDRESSES,
} from '../../eval/emails.ts';
import { historyLines } from '../../eval/history-file.ts';
import { cardholderName, nicknamesOf, type PersonName, personName } from '../../eval/names.ts';
import { runNetworkScenario } from '../../eval/network-scenario.ts';
import { NOMINAL } from '../../eval/params.ts';
import * as patterns from '../../eval/patterns.ts';
import { SeededRandom } from '../../eval/random.ts';
import { scheduleTraffic } from '../../eval/schedule.ts';
import { newShopper } from '../../eval/traffic.ts';
import { type Body, END, play } from '../support/eval-patterns.ts';

const DAY = 86_400_000;

/** The API's own check of an address (shared/schemas/fields.ts uses zod's). */
const valid = (address: string) =>
  z.email().max(320).safeParse(address).success && address.split('@')[0]!.length <= 64;

const emailOf = (body: Body): string | undefined =>
  body.username ??
  (body.customer ?? body).contactInformation?.find((c: Body) => c.contactType === 'EMail')?.address;
const nameOf = (body: Body): PersonName => {
  const { firstName, lastName } = body.customer ?? body;
  return { firstName, surname: lastName };
};
const localOf = (address: string) => address.split('@')[0]!;
const share = (hits: number, of: number) => hits / of;

const YY = '(7\\d|8\\d|9\\d|0[0-5])';
const YYYY = '(19[5-9]\\d|200[0-5])';
const WORDS = (list: readonly string[]) => `(${list.join('|')})`;
const HANDLE = new RegExp(
  `^(${WORDS(HANDLE_WORDS.ADJECTIVES)}${WORDS(HANDLE_WORDS.NOUNS)}|${WORDS(HANDLE_WORDS.HOBBIES)}${WORDS(HANDLE_WORDS.ROLES)})\\d*$`,
);

/** Which form a local part has for the name (independently of how eval/emails.ts builds it). */
function formOf(local: string, name: PersonName): Form {
  const f = letters(name.firstName);
  const l = letters(name.surname);
  const i = f[0]!;
  const nicks = nicknamesOf(name.firstName).map(letters);
  const is = (pattern: string) => new RegExp(`^${pattern}$`).test(local);
  const base = `(${f}\\.${l}|${f}${l}|${i}${l})`;
  if (is(`${f}\\.${l}`)) return 'first.last';
  if (is(`${f}${l}`)) return 'firstlast';
  if (is(`${i}${l}`)) return 'flast';
  if (is(`${f}_${l}`)) return 'first_last';
  if (is(`${f}${l[0]}`)) return 'firstl';
  if (is(`${f}\\.[a-z]\\.${l}`)) return 'first.m.last';
  if (is(`${base}${YY}`)) return 'name+yy';
  if (is(`(${f}\\.${l}|${f}${l})${YYYY}`)) return 'name+yyyy';
  if (is(`${base}\\d{1,3}`)) return 'name+number';
  if (nicks.length > 0 && is(`${WORDS(nicks)}\\.?${l}(${YY})?`)) return 'nickname';
  if (is(`${l}\\.?${f}`)) return 'lastfirst';
  if (is(`${f}\\d+`)) return 'first+digits';
  if (HANDLE.test(local)) return 'handle';
  return 'odd';
}

/** Whether the local part shows the name: its first name, a nickname of it, or its surname. */
function showsName(local: string, name: PersonName): boolean {
  const parts = [name.firstName, name.surname, ...nicknamesOf(name.firstName)].map(letters);
  return parts.some((part) => part.length >= 3 && local.includes(part));
}

const nameBuilt = (forms: FormShares) => 1 - (forms.handle ?? 0) - (forms.odd ?? 0);

/** Whether `local` is `earlier` varied: a plus tag, a dot added or taken out, digits appended, or both the same. */
function isVariation(local: string, earlier: string): boolean {
  const plain = (s: string) => s.split('+')[0]!.replaceAll('.', '');
  const [a, b] = [plain(local), plain(earlier)];
  return a === b || (a.startsWith(b) && /^\d+$/.test(a.slice(b.length)));
}

describe('e-mail addresses in the evaluation traffic', () => {
  it('are valid, lower-case, one per person on every event, and never shared by two people', () => {
    for (const params of [NOMINAL, { ...NOMINAL, emailDomains: 'small' as const }]) {
      const steps = scheduleTraffic(7, END, params);
      const byCustomer = new Map<string, Set<string>>();
      const byAddress = new Map<string, Set<string>>();
      const namesOf = new Map<string, Set<string>>();
      for (const { body } of steps as { body: Body }[]) {
        const email = emailOf(body);
        if (email === undefined) continue;
        expect(valid(email), email).toBe(true);
        expect(email).toBe(email.toLowerCase());
        if (body.email !== undefined) expect(body.email).toBe(email);
        const customer = body.customerId ?? body.providerCustomerId;
        if (customer !== undefined) {
          byCustomer.set(customer, (byCustomer.get(customer) ?? new Set()).add(email));
          byAddress.set(email, (byAddress.get(email) ?? new Set()).add(customer));
        }
        const { firstName, surname } = nameOf(body);
        if (firstName !== undefined)
          namesOf.set(email, (namesOf.get(email) ?? new Set()).add(`${firstName} ${surname}`));
      }
      expect(byCustomer.size).toBeGreaterThan(400);
      for (const addresses of byCustomer.values()) expect(addresses.size).toBe(1);
      for (const customers of byAddress.values()) expect(customers.size).toBe(1);
      // Orders carry no customer id: an address shows one name wherever it appears.
      for (const names of namesOf.values()) expect(names.size).toBe(1);
    }

    // Many people at once: all apart (a taken address gets digits), valid, at the large providers.
    const rng = new SeededRandom(1);
    const addresses = Array.from({ length: 20_000 }, () => newShopper(rng).email);
    expect(new Set(addresses).size).toBe(addresses.length);
    for (const address of addresses) {
      expect(valid(address), address).toBe(true);
      expect(address).toBe(address.toLowerCase());
      expect(LARGE_PROVIDERS as readonly string[]).toContain(address.split('@')[1]);
    }
  });

  it('builds honest shoppers’ addresses from their name in the forms and shares chosen', () => {
    const rng = new SeededRandom(2);
    const shoppers = Array.from({ length: 20_000 }, () => newShopper(rng));
    const counts = new Map<Form, number>();
    for (const shopper of shoppers) {
      const form = formOf(localOf(shopper.email), shopper);
      counts.set(form, (counts.get(form) ?? 0) + 1);
    }
    const observed = (form: Form) => share(counts.get(form) ?? 0, shoppers.length);
    // A nickname where the first name has one, else the first name: then first.last or firstlast.
    const withNickname = share(
      shoppers.filter((s) => nicknamesOf(s.firstName).length > 0).length,
      shoppers.length,
    );
    const plain = ['first.last', 'firstlast', 'name+yy', 'nickname'] as const;
    for (const [form, expected] of Object.entries(PERSONAL_FORMS) as [Form, number][]) {
      if ((plain as readonly Form[]).includes(form)) continue;
      expect(Math.abs(observed(form) - expected), form).toBeLessThan(0.012);
    }
    expect(Math.abs(observed('nickname') - PERSONAL_FORMS.nickname! * withNickname)).toBeLessThan(0.008);
    const together = (forms: readonly Form[]) => forms.reduce((sum, form) => sum + observed(form), 0);
    const expected = plain.reduce((sum, form) => sum + PERSONAL_FORMS[form]!, 0);
    expect(Math.abs(together(plain) - expected)).toBeLessThan(0.015);

    const showing = shoppers.filter((s) => showsName(localOf(s.email), s)).length;
    expect(Math.abs(share(showing, shoppers.length) - nameBuilt(PERSONAL_FORMS))).toBeLessThan(0.015);
  });

  it('gives a renamed household member an address from the name he ends up with', () => {
    const shoppers = patterns.goodShoppers(
      { rng: new SeededRandom(11), now: END, send: () => {}, params: NOMINAL },
      3000,
    );
    const renamed = shoppers.filter((s) => s.surname !== personName(s.customerId).surname);
    expect(renamed.length).toBeGreaterThan(100);
    const showing = renamed.filter((s) => showsName(localOf(s.email), s)).length;
    expect(Math.abs(share(showing, renamed.length) - nameBuilt(PERSONAL_FORMS))).toBeLessThan(0.08);
    const before = renamed.filter((s) =>
      localOf(s.email).includes(letters(personName(s.customerId).surname)),
    );
    expect(share(before.length, renamed.length)).toBeLessThan(0.03);
  });

  it('makes a ring’s fresh e-mails from the order’s name (cardholder’s or made up) or throwaway, and a bot wave’s ordinary-looking', () => {
    const orders = play(3, (ctx) => patterns.chargebackRings(ctx, 300)).filter((r) => r.path === '/v1/order');
    const addresses = orders.map(({ body }) => emailOf(body)!);
    expect(new Set(addresses).size).toBe(addresses.length);
    const asCardholder = orders.filter(({ body }) => {
      const holder = cardholderName(body.paymentInfo[0]);
      return body.customer.firstName === holder.firstName && body.customer.lastName === holder.surname;
    });
    expect(asCardholder.length).toBeGreaterThan(600);
    for (const group of [asCardholder, orders.filter((o) => !asCardholder.includes(o))]) {
      const showing = group.filter(({ body }) => showsName(localOf(emailOf(body)!), nameOf(body)));
      expect(Math.abs(share(showing.length, group.length) - nameBuilt(RING_FORMS))).toBeLessThan(0.06);
    }
    const odd = orders.filter(({ body }) => formOf(localOf(emailOf(body)!), nameOf(body)) === 'odd');
    expect(Math.abs(share(odd.length, orders.length) - RING_FORMS.odd!)).toBeLessThan(0.05);

    const burst = play(3, (ctx) => patterns.newAccountBursts(ctx, 200)).filter(
      (r) => r.path === '/v1/evaluate/signup',
    );
    const forms = burst.map(({ body }) => formOf(localOf(emailOf(body)!), nameOf(body)));
    expect(forms).not.toContain('odd');
    const showing = burst.filter(({ body }) => showsName(localOf(emailOf(body)!), nameOf(body)));
    expect(Math.abs(share(showing.length, burst.length) - nameBuilt(BURST_FORMS))).toBeLessThan(0.05);
  });

  it('gives a multi-accounter’s later accounts and a self-referrer’s referees variations of his address on the shares chosen', () => {
    const devices = Map.groupBy(
      play(3, (ctx) => patterns.multiAccounting(ctx, 400)),
      (r) => r.body.deviceFingerprints[0].deviceIdentifier,
    );
    let later = 0;
    let varied = 0;
    for (const [owner, ...accounts] of devices.values()) {
      for (const { body } of accounts) {
        later++;
        expect(emailOf(body)).not.toBe(emailOf(owner!.body));
        if (isVariation(localOf(emailOf(body)!), localOf(emailOf(owner!.body)!))) varied++;
      }
    }
    // Beyond the variations, an address from his own name again matches his first only by chance.
    expect(share(varied, later)).toBeGreaterThan(MULTI_ACCOUNT_ADDRESSES.variation! - 0.03);
    expect(share(varied, later)).toBeLessThan(MULTI_ACCOUNT_ADDRESSES.variation! + 0.07);

    const signups = play(4, (ctx) => patterns.selfReferral(ctx, 600)).filter(
      (r) => r.path === '/v1/evaluate/signup',
    );
    const referrers = new Map(signups.map(({ body }) => [body.customerId, emailOf(body)!]));
    const referees = signups.filter(({ body }) => body.referrerID !== undefined);
    const copies = referees.filter(({ body }) =>
      isVariation(localOf(emailOf(body)!), localOf(referrers.get(body.referrerID)!)),
    );
    expect(share(copies.length, referees.length)).toBeGreaterThan(REFEREE_ADDRESSES.variation! - 0.03);
    expect(share(copies.length, referees.length)).toBeLessThan(REFEREE_ADDRESSES.variation! + 0.05);
  });

  it('sends a new address with an e-mail change: the customer’s own elsewhere, or the attacker’s', () => {
    const victims = patterns.goodShoppers(
      { rng: new SeededRandom(5), now: END, send: () => {}, params: NOMINAL },
      400,
    );
    const changes = play(6, (ctx) => patterns.takeoverAccountChanges(ctx, victims)).filter(
      (r) => r.body.changeType === 'EMAIL_CHANGE',
    );
    expect(changes.length).toBeGreaterThan(80);
    const emailOfVictim = new Map(victims.map((v) => [v.customerId, v.email]));
    let lookAlikes = 0;
    for (const { body } of changes) {
      const victim = emailOfVictim.get(body.providerCustomerId)!;
      expect(valid(body.newValue)).toBe(true);
      expect(body.newValue.split('@')[1]).not.toBe(victim.split('@')[1]);
      if (isVariation(localOf(body.newValue), localOf(victim))) lookAlikes++;
    }
    expect(Math.abs(share(lookAlikes, changes.length) - TAKEOVER_ADDRESSES.variation!)).toBeLessThan(0.12);

    const own = play(7, (ctx) => patterns.goodShoppers(ctx, 2000));
    const signupOf = new Map(
      own.filter((r) => r.path === '/v1/evaluate/signup').map(({ body }) => [body.customerId, body]),
    );
    const changed = own.filter((r) => r.body.changeType === 'EMAIL_CHANGE');
    expect(changed.length).toBeGreaterThan(40);
    for (const { body } of changed) {
      const signup = signupOf.get(body.providerCustomerId);
      expect(valid(body.newValue)).toBe(true);
      expect(body.newValue.split('@')[1]).not.toBe(emailOf(signup)!.split('@')[1]);
    }
    const others = own.filter(
      (r) => r.path === '/v1/evaluate/account' && r.body.changeType !== 'EMAIL_CHANGE',
    );
    for (const { body } of others) expect(body.newValue).toBe('redacted');
  });

  it('gives the network scenario’s people and its ring real-looking addresses, and the history file too', async () => {
    const bodies: Body[] = [];
    const decision = { cartLevelDecisions: [{ decisions: [{ decision: 'APPROVE', decisionReason: '' }] }] };
    await runNetworkScenario(
      {
        merchant: async () => ({ eventsKey: 'e', consoleKey: 'c' }),
        call: async (_method, _key, path, body) => {
          if (path === '/v1/order') bodies.push(body);
          return { status: 200, body: decision };
        },
        drain: async () => {},
        clock: () => {},
      },
      9,
      END,
    );
    const orders = bodies.slice(0, bodies.length / 2);
    const byCard = Map.groupBy(orders, (b) => `${b.paymentInfo[0].last4}:${b.paymentInfo[0].BIN}`);
    for (const order of orders) {
      const email = emailOf(order)!;
      expect(valid(email), email).toBe(true);
      expect(email).not.toContain('example');
      expect(LARGE_PROVIDERS as readonly string[]).toContain(email.split('@')[1]);
    }
    // Honest customers keep one address; the ring makes a fresh one for every order.
    const ring = (group: Body[]) => group[0].deviceFingerprints[0].deviceIdentifier.startsWith('ring-device');
    const ringCards = [...byCard.values()].filter(ring);
    expect(ringCards.length).toBeGreaterThan(10);
    for (const group of ringCards) expect(new Set(group.map(emailOf)).size).toBe(group.length);
    const honest = [...byCard.values()].filter((group) => !ring(group));
    expect(honest.length).toBeGreaterThan(300);
    for (const group of honest) expect(new Set(group.map(emailOf)).size).toBe(1);
    const showing = honest.filter((group) => showsName(localOf(emailOf(group[0])!), nameOf(group[0])));
    expect(Math.abs(share(showing.length, honest.length) - nameBuilt(PERSONAL_FORMS))).toBeLessThan(0.07);

    const lines = historyLines({ shoppers: 200, seed: 3, start: END - 300 * DAY });
    const signups = lines.filter((l) => l.type === 'signup').map((l) => l.body as Body);
    expect(new Set(signups.map(emailOf)).size).toBe(200);
    for (const body of signups) expect(valid(emailOf(body)!)).toBe(true);
  });
});
