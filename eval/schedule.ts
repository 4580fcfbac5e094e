import type { EvalContext, Label } from './context.ts';
import { asSent } from './integration.ts';
import { NOMINAL, NOMINAL_AGE, scaledCount, type TrafficParams } from './params.ts';
import * as patterns from './patterns.ts';
import { SeededRandom } from './random.ts';

/** One request of the timeline, at its time; `order` breaks ties in the order it was written. */
export interface Step {
  at: number;
  order: number;
  path: string;
  body: unknown;
  label?: Label;
}

const DAY = 86_400_000;
/** A sale day brings nine more days' worth of traffic into one (ten times the usual), same mix. */
const SALE_DAY_EXTRA_DAYS = 9;
const YEAR = 365 * DAY;

/**
 * The whole timeline `npm run eval` plays, ending at `end`, under the parameters (eval/params.ts):
 * every pattern and honest look-alike, as the merchant's integration sends it (eval/integration.ts),
 * in time order. Events past the end (a slow pattern that has not got that far) are not played.
 */
export function scheduleTraffic(seed: number, end: number, params: TrafficParams = NOMINAL): Step[] {
  const steps: Step[] = [];
  const rng = new SeededRandom(seed);
  // A young merchant sent nothing before its first day (a kept order a week before a return, say).
  const start = params.merchantAge === NOMINAL_AGE ? Number.NEGATIVE_INFINITY : end - params.merchantAge;
  const send: EvalContext['send'] = (at, path, body, label) => {
    if (at > end || at < start) return;
    steps.push({
      at,
      order: steps.length,
      path,
      body: asSent(path, body, params),
      ...(label ? { label } : {}),
    });
  };
  writeTraffic({ rng, now: end, send, params }, params.volume);
  if (params.saleDayEndsBefore !== undefined) {
    // The sale's shoppers and abusers, everything they start within the day, at the same gaps: nine
    // more of the merchant's own days (a year's traffic spread over its age, a year at most).
    const saleEnd = end - params.saleDayEndsBefore;
    writeTraffic(
      { rng, now: saleEnd, end, send, params: { ...params, merchantAge: DAY } },
      (params.volume * SALE_DAY_EXTRA_DAYS * DAY) / Math.min(params.merchantAge, YEAR),
    );
  }
  return steps.sort((a, b) => a.at - b.at || a.order - b.order);
}

function writeTraffic(ctx: EvalContext, volume: number) {
  const n = (count: number) => scaledCount(count, volume);
  const shoppers = patterns.goodShoppers(ctx, n(300));
  patterns.serialReturners(ctx, n(30));
  patterns.emptyBoxReturners(ctx, n(30));
  patterns.chargebackRings(ctx, n(10));
  patterns.lateFeedbackRings(ctx, n(10));
  patterns.newAccountBursts(ctx, n(12));
  patterns.multiAccounting(ctx, n(20));
  patterns.selfReferral(ctx, n(20));
  patterns.credentialStuffing(ctx, shoppers.slice(0, n(150)), n(8));
  patterns.accountTakeover(ctx, shoppers.slice(n(150), n(190)));
  patterns.householdLookAlikes(ctx, shoppers, { newPhones: n(3), newCards: n(6) });
  // Abuse that comes back after it was confirmed, and the honest look-alikes of it, last: the draws
  // above stay as they were.
  patterns.linkedAfterChargeback(ctx, n(10));
  patterns.linkedAfterEmptyBox(ctx, n(15));
  patterns.repeatWardrobing(ctx, n(15));
  patterns.takeoverAccountChanges(ctx, shoppers.slice(n(190), n(230)));
  patterns.linkedLookAlikes(ctx, { households: n(8), giftShippers: n(10), keepMost: n(10) });
}
