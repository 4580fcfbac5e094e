import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CARDHOLDER_NAME_SHARE,
  cardholderName,
  FAMILY_SURNAME_SHARE,
  HOUSEHOLD_SURNAME_SHARE,
} from '../../eval/names.ts';
import { NOMINAL } from '../../eval/params.ts';
import * as patterns from '../../eval/patterns.ts';
import { SeededRandom } from '../../eval/random.ts';
import { scheduleTraffic } from '../../eval/schedule.ts';
import { type Body, END, play } from '../support/eval-patterns.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const nameOf = (body: Body): string => {
  const { firstName, lastName } = body.customer ?? body;
  return `${firstName} ${lastName}`;
};
const deviceOf = (body: Body): string => body.deviceFingerprints[0].deviceIdentifier;
const share = (hits: number, of: number) => hits / of;

describe('names in the evaluation traffic', () => {
  it('leave the random stream as it was: the same steps at the same times, the same bodies but for the names and addresses', () => {
    const steps = scheduleTraffic(7, END);
    // The first digest was taken on the traffic before it carried names ('Eval Shopper' everywhere),
    // the second on it with the names and addresses left out (an e-mail change's new address then
    // read 'redacted'): addresses follow the names (eval/emails.ts) and take no draw either.
    expect(sha256(steps.map((s) => s.at + s.path).join('\n'))).toBe(
      '3a2def3b31559411e1372a9e686895b0dec065bad85210bb1eb032a9bf77071d',
    );
    const withoutNames = (key: string, value: unknown) => {
      if (key === 'firstName' || key === 'lastName') return undefined;
      if (key === 'newValue') return 'redacted';
      return typeof value === 'string' && value.includes('@') ? 'address' : value;
    };
    expect(sha256(JSON.stringify(steps, withoutNames))).toBe(
      'f4bfa97b3e92efef4aebd387adcb11aa4c36ba682b8e11cedd38196132aa606c',
    );
    expect(steps.some((s) => JSON.stringify(s.body).includes('"Eval"'))).toBe(false);
    expect(steps.some((s) => JSON.stringify(s.body).includes('"user-'))).toBe(false);
  });

  it('gives household members the surname of the member they are linked to on the share chosen, strangers seldom', () => {
    const shoppers = patterns.goodShoppers(
      { rng: new SeededRandom(11), now: END, send: () => {}, params: NOMINAL },
      3000,
    );
    const members = shoppers.filter((s, i) => shoppers.slice(0, i).some((e) => e.device === s.device));
    const sharing = members.filter((m) =>
      shoppers.some((e) => e !== m && e.device === m.device && e.surname === m.surname),
    );
    expect(members.length).toBeGreaterThan(250);
    expect(Math.abs(share(sharing.length, members.length) - HOUSEHOLD_SURNAME_SHARE)).toBeLessThan(0.07);
    const strangers = shoppers
      .slice(1)
      .filter((s, i) => s.surname === shoppers[i]!.surname && s.device !== shoppers[i]!.device);
    expect(share(strangers.length, shoppers.length)).toBeLessThan(0.01);

    // Families on a new shared phone: the second member against the first.
    const signups = play(5, (ctx) =>
      patterns.householdLookAlikes(ctx, [], { newPhones: 500, newCards: 0 }),
    ).filter((r) => r.path === '/v1/evaluate/signup');
    const families = Map.groupBy(signups, (r) => deviceOf(r.body));
    const same = [...families.values()].filter(
      ([first, second]) => first!.body.lastName === second!.body.lastName,
    );
    expect(Math.abs(share(same.length, families.size) - FAMILY_SURNAME_SHARE)).toBeLessThan(0.05);
  });

  it('names the accounts of a multi-accounter after him, and ring orders after the cardholder, on the shares chosen', () => {
    const devices = Map.groupBy(
      play(3, (ctx) => patterns.multiAccounting(ctx, 300)),
      (r) => deviceOf(r.body),
    );
    let same = 0;
    let variant = 0;
    let later = 0;
    for (const [owner, ...accounts] of devices.values()) {
      for (const { body } of accounts) {
        later++;
        if (body.lastName !== owner!.body.lastName) continue;
        if (body.firstName === owner!.body.firstName) same++;
        else variant++;
      }
    }
    expect(Math.abs(share(same, later) - 0.4)).toBeLessThan(0.05);
    // A variation keeps the surname; a made-up name shares it only by chance.
    expect(Math.abs(share(variant, later) - 0.3)).toBeLessThan(0.05);

    const orders = play(3, (ctx) => patterns.chargebackRings(ctx, 200)).filter((r) => r.path === '/v1/order');
    const asCardholder = orders.filter(({ body }) => {
      const holder = cardholderName(body.paymentInfo[0]);
      return body.customer.firstName === holder.firstName && body.customer.lastName === holder.surname;
    });
    expect(Math.abs(share(asCardholder.length, orders.length) - CARDHOLDER_NAME_SHARE)).toBeLessThan(0.05);

    // A bot's order carries the name its account signed up with.
    const burst = play(3, (ctx) => patterns.newAccountBursts(ctx, 20));
    for (const [i, { path, body }] of burst.entries()) {
      if (path !== '/v1/order') continue;
      const signup = burst[i - 1]!;
      expect(signup.path).toBe('/v1/evaluate/signup');
      expect(nameOf(body)).toEqual(nameOf(signup.body));
    }
  });
});
