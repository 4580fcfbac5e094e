import { agoWithin, NOMINAL_AGE, type TrafficParams } from './params.ts';
import type { SeededRandom } from './random.ts';

/**
 * What a traffic generator (eval/patterns.ts) writes into, and how its times bend to the parameters
 * (eval/params.ts): at `NOMINAL` every helper here is the identity and takes no random draw.
 */
export type EventType = 'order' | 'return' | 'signup' | 'login' | 'account';

export interface Label {
  pattern: string;
  label: 0 | 1;
  eventType: EventType;
  /** For good traffic: the honest look-alike it belongs to, reported on its own. */
  cohort?: string;
  /**
   * For abuse that only feedback on the pattern's earlier steps shows (their chargebacks, the
   * warehouse's verdicts on their returns): when the first of that feedback reaches the merchant.
   * A step decided before it is counted apart (eval/README.md, "Before the evidence").
   */
  evidenceAt?: number;
}

export interface EvalContext {
  rng: SeededRandom;
  /** The end of the timeline: every event happens before it. */
  now: number;
  /** Schedules a request at time `at`; a label records its decision under that pattern. */
  send: (at: number, path: string, body: unknown, label?: Label) => void;
  params: TrafficParams;
  /**
   * Where events stop being played, when it is not `now`: a sale day's traffic starts within the
   * day and goes on after it, up to the timeline's end.
   */
  end?: number;
}

const MINUTE = 60_000;

/** Whether the timeline is the one `npm run eval` has always played (its clamps then apply). */
const nominalTiming = (ctx: EvalContext) =>
  ctx.params.gapScale === 1 && ctx.params.merchantAge === NOMINAL_AGE && ctx.end === undefined;

/** The time `offset` ms before the end of the nominal timeline, within the merchant's age. */
export function ago(ctx: EvalContext, offset: number): number {
  return ctx.now - agoWithin(offset, ctx.params.merchantAge);
}

/**
 * A pattern's start, `offset` ms before the end nominally: a pattern with longer gaps started that
 * much earlier (still within the merchant's age), so its steps fit in the timeline.
 */
export function patternStart(ctx: EvalContext, offset: number): number {
  const stretched = Math.min(NOMINAL_AGE, Math.round(offset * Math.max(1, ctx.params.gapScale)));
  return ago(ctx, stretched);
}

/** A gap between two steps of a pattern, scaled (whole milliseconds: times go out as digits). */
export function gap(ctx: EvalContext, ms: number): number {
  return Math.round(ms * ctx.params.gapScale);
}

/**
 * A time within a shopper's life (`offset` ms nominally), compressed with the merchant's age, but
 * never under a few minutes: a person does not sign up and order within seconds.
 */
export function lifeGap(ctx: EvalContext, ms: number): number {
  if (ctx.params.merchantAge === NOMINAL_AGE) return ms;
  return Math.max(Math.min(ms, 5 * MINUTE), agoWithin(ms, ctx.params.merchantAge));
}

/**
 * `at`, kept `margin` ms before the end on the nominal timeline (as it always was); on any other
 * timeline an event past the end is simply not played (the pattern had not got that far).
 */
export function clampToEnd(ctx: EvalContext, at: number, margin: number): number {
  return nominalTiming(ctx) ? Math.min(ctx.now - margin, at) : at;
}

/** Where events stop being played. */
export const endOf = (ctx: EvalContext) => ctx.end ?? ctx.now;
