import { SeededRandom } from '../../eval/random.ts';
import { type Delivery, inArrivalOrder } from './live-traffic/delivery.ts';
import { People, type Person } from './live-traffic/people.ts';
import { ShopTraffic } from './live-traffic/visits.ts';

/**
 * Seeded, deterministic honest traffic of one shop, by day: a brand-new merchant's launch and first
 * week, and an established merchant's history followed by a day at ten times its usual traffic.
 * Only the arrival rates live here; what each customer does is in live-traffic/visits.ts.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Arrivals by hour of the day (UTC stands in for the shop's time zone): quiet nights, busy evenings. */
const DIURNAL = [
  2, 1.2, 0.8, 0.6, 0.6, 0.9, 1.6, 2.6, 3.6, 4.2, 4.6, 5, 5.2, 5, 4.8, 4.8, 5, 5.4, 6, 6.6, 7, 6.2, 4.6, 3,
];

/** One day's arrivals of an ordinary day; a surge multiplies every one of them. */
interface DayMix {
  /** New customers signing up on their own. */
  signups: number;
  /** Customers with an account coming back (login, then maybe an order, a change, a return). */
  visits: number;
  guestOrders: number;
  /** Households whose members join one after another on the family tablet. */
  households: number;
  /** Groups of colleagues signing up within one hour. */
  colleagueGroups: number;
}

export interface LiveTraffic {
  /** Every request, in arrival order. */
  deliveries: Delivery[];
  /** Reported separately: history the merchant imports before the live period (empty for a new merchant). */
  history: Delivery[];
  /** When the merchant is created (before any event). */
  merchantCreatedAt: number;
  /** The start of the live period measured. */
  liveFrom: number;
}

export interface LaunchBurst {
  minutes: number;
  signupsPerMinute: number;
}

/**
 * A brand-new merchant goes live at `goLive` with a launch campaign: `burst.minutes` of signups at
 * `burst.signupsPerMinute` (students and colleagues passing the link on, households joining on one
 * tablet, a fifth signing up at checkout), then a small shop's typical days for a week. Its existing
 * customers (accounts made before it sent us anything) log in and shop from the first minute.
 */
export function firstWeekTraffic(seed: number, goLive: number, burst: LaunchBurst): LiveTraffic {
  const rng = new SeededRandom(seed);
  const people = new People(rng);
  const shop = new ShopTraffic(rng, people, { end: goLive + 7 * DAY, liveFrom: goLive });
  const existing = shop.existingCustomers(900);

  // The launch: arrivals as a Poisson process at the campaign's rate.
  const burstEnd = goLive + burst.minutes * MINUTE;
  for (let t = goLive + exponential(rng, MINUTE / burst.signupsPerMinute); t < burstEnd; ) {
    const draw = rng.next();
    const at = Math.round(t);
    if (draw < 0.04) shop.household(people.household(rng.int(2, 4)), at, 'launch-burst:household');
    else {
      const person = people.person({ mailbox: draw < 0.1 ? 'school' : 'personal' });
      shop.newCustomer(person, at, 'launch-burst');
    }
    t += exponential(rng, MINUTE / burst.signupsPerMinute);
  }
  for (let i = 0; i < 6; i++) {
    shop.colleagues(
      people.company(),
      rng.int(4, 9),
      goLive + rng.int(0, 50 * MINUTE),
      'launch-burst:colleagues',
    );
  }

  const typical: DayMix = { signups: 30, visits: 60, guestOrders: 12, households: 1.5, colleagueGroups: 0.5 };
  // The rest of the launch day is busier than an ordinary one.
  playDay(shop, { start: burstEnd, end: goLive + DAY }, scale(typical, 2), existing);
  for (let day = 1; day < 7; day++) {
    playDay(shop, { start: goLive + day * DAY, end: goLive + (day + 1) * DAY }, typical, existing);
  }
  return {
    deliveries: inArrivalOrder(shop.deliveries),
    history: [],
    merchantCreatedAt: goLive - HOUR,
    liveFrom: goLive,
  };
}

/**
 * An established merchant: `historyDays` of ordinary days (imported as history), then one day at
 * ten times its usual traffic with the same mix, a TV spot in the evening. Returns that day are ten
 * times the usual too, from orders of the weeks before.
 */
export function surgeTraffic(seed: number, surgeDay: number, historyDays: number): LiveTraffic {
  const rng = new SeededRandom(seed);
  const people = new People(rng, 1_600_000);
  const start = surgeDay - historyDays * DAY;
  const shop = new ShopTraffic(rng, people, { end: surgeDay + DAY, liveFrom: surgeDay });
  const existing = shop.existingCustomers(600);
  const usual: DayMix = { signups: 16, visits: 36, guestOrders: 8, households: 0.8, colleagueGroups: 0.3 };
  for (let day = 0; day < historyDays; day++) {
    playDay(shop, { start: start + day * DAY, end: start + (day + 1) * DAY }, usual, existing);
  }
  const usualReturnsPerDay =
    shop.deliveries.filter((d) => d.kind === 'return' && d.at >= start + 14 * DAY && d.at < surgeDay).length /
    (historyDays - 14);
  const surge = { start: surgeDay, end: surgeDay + DAY };
  playDay(shop, surge, scale(usual, 10), existing, { tvSpotHour: 20 });
  const returnsToday = shop.deliveries.filter((d) => d.kind === 'return' && d.at >= surgeDay).length;
  shop.returnsOfRecentOrders(
    surge.start,
    surge.end,
    Math.round(10 * usualReturnsPerDay) - returnsToday,
    'surge:returns-desk',
    surgeDay - 21 * DAY,
  );
  const all = inArrivalOrder(shop.deliveries);
  return {
    deliveries: all.filter((d) => d.at >= surgeDay),
    history: all.filter((d) => d.at < surgeDay),
    merchantCreatedAt: start - HOUR,
    liveFrom: surgeDay,
  };
}

/** One day's arrivals spread over its hours; returning visits come from the shop's accounts. */
function playDay(
  shop: ShopTraffic,
  window: { start: number; end: number },
  mix: DayMix,
  existing: readonly Person[],
  options: { tvSpotHour?: number } = {},
) {
  const { rng, people } = shop;
  const profile = DIURNAL.map((w, hour) => (hour === options.tvSpotHour ? w * 3 : w));
  const times = (count: number) => arrivals(rng, window, count, profile);
  for (const t of times(mix.signups)) {
    const person = people.person({ mailbox: rng.chance(0.03) ? 'school' : 'personal' });
    shop.newCustomer(person, t, 'organic-signup');
  }
  for (const t of times(mix.visits)) {
    // Existing customers are most of the returning ones; new accounts come back too.
    const pool = rng.chance(0.7) || shop.accounts.length <= existing.length ? existing : shop.accounts;
    shop.returningVisit(rng.pick(pool), t, 'returning-customer');
  }
  for (const t of times(mix.guestOrders)) shop.guestOrder(people.person(), t, 'guest-order');
  for (const t of times(poissonCount(rng, mix.households)))
    shop.household(people.household(rng.int(2, 4)), t);
  for (const t of times(poissonCount(rng, mix.colleagueGroups))) {
    shop.colleagues(people.company(), rng.int(3, 7), t);
  }
}

function scale(mix: DayMix, factor: number): DayMix {
  return {
    signups: Math.round(mix.signups * factor),
    visits: Math.round(mix.visits * factor),
    guestOrders: Math.round(mix.guestOrders * factor),
    households: mix.households * factor,
    colleagueGroups: mix.colleagueGroups * factor,
  };
}

/** `count` times in the window, denser in the busy hours of `profile` (rejection sampling). */
function arrivals(
  rng: SeededRandom,
  window: { start: number; end: number },
  count: number,
  profile: readonly number[],
): number[] {
  const peak = Math.max(...profile);
  const times: number[] = [];
  while (times.length < count) {
    const t = window.start + rng.next() * (window.end - window.start);
    const hour = Math.floor((t % DAY) / HOUR);
    if (rng.next() * peak < profile[hour]!) times.push(Math.round(t));
  }
  return times.sort((a, b) => a - b);
}

function exponential(rng: SeededRandom, mean: number): number {
  return -Math.log(1 - rng.next()) * mean;
}

/** A Poisson draw of mean `mean` (small means only). */
function poissonCount(rng: SeededRandom, mean: number): number {
  const limit = Math.exp(-mean);
  let count = 0;
  for (let p = rng.next(); p > limit; p *= rng.next()) count++;
  return count;
}
