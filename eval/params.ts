import type { SeededRandom } from './random.ts';

/**
 * What the traffic generator lets vary (eval/patterns.ts, eval/schedule.ts). `NOMINAL` reproduces
 * the traffic `npm run eval` has always played, draw for draw: a parameter at its nominal value
 * takes no random draw of its own, so the random stream stays as it was.
 */
export interface TrafficParams {
  /** Multiplies every gap between a pattern's steps (a ring's orders, a wardrober's cycles, ...). */
  gapScale: number;
  /** How long the merchant has been sending traffic, in ms: every pattern and shopper starts within it. */
  merchantAge: number;
  /** Multiplies the number of shoppers, rings, waves and look-alikes. */
  volume: number;
  /** A day at ten times the usual traffic, with the same mix: its end, in ms before the timeline's end. */
  saleDayEndsBefore?: number;
  /** Shares of events that carry each optional field. */
  fields: FieldShares;
  /** E-mail domains: the few large providers, or many small ones (eval/email-mix.ts). */
  emailDomains: 'large' | 'small';
  /** Honest households on a shared phone or device: how many members, and how far apart they join. */
  households?: { members: readonly [number, number]; joinGap: readonly [number, number] };
}

export interface FieldShares {
  orderDevice: number;
  /** `timestamp` on signups and logins; without it the event is live (the server's clock). */
  accountTimestamp: number;
  signupPhone: number;
  signupBilling: number;
}

const DAY = 86_400_000;
/** The timeline `npm run eval` plays: good shoppers join up to 400 days before its end. */
export const NOMINAL_AGE = 400 * DAY;

export const NOMINAL: TrafficParams = {
  gapScale: 1,
  merchantAge: NOMINAL_AGE,
  volume: 1,
  fields: { orderDevice: 1, accountTimestamp: 1, signupPhone: 0, signupBilling: 0 },
  emailDomains: 'large',
};

/** A whole value drawn log-uniformly in [min, max]: gaps of minutes and of months are equally likely. */
export function logUniform(rng: SeededRandom, [min, max]: readonly [number, number]): number {
  if (!(min > 0 && max >= min)) throw new Error(`not a range of positive values: [${min}, ${max}]`);
  if (min === max) return min;
  const value = Math.round(Math.exp(Math.log(min) + rng.next() * (Math.log(max) - Math.log(min))));
  return Math.min(max, Math.max(min, value));
}

/** A count scaled by the volume: at the nominal volume, the count itself. */
export function scaledCount(count: number, volume: number): number {
  return volume === 1 ? count : Math.round(count * volume);
}

/**
 * How far back something started, `offset` ms before the end on the nominal timeline: compressed
 * into the merchant's age (a merchant one day old has everything within its first day).
 */
export function agoWithin(offset: number, merchantAge: number): number {
  return merchantAge === NOMINAL_AGE ? offset : Math.round((offset * merchantAge) / NOMINAL_AGE);
}
