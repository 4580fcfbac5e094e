import { stableChance } from './stable.ts';

/**
 * How the merchant's analyst works the review queue in the evaluation, as review teams do: most
 * items get resolved, days after they were queued (when someone gets to them), and a few wrongly;
 * the rest stay open. The analyst sees what a person at the merchant sees (the order history, the
 * return in the warehouse, the customer's complaint), modelled as knowing what the event really was
 * and getting it wrong some of the time. An event the simulation has no verdict for (a pattern's
 * unscored first act) is left open. Each review's fate depends only on its event's id, so both runs
 * treat the same event alike.
 */
export const ANALYST = {
  /** Share of reviews ever resolved. */
  resolvedShare: 0.8,
  /** Days from the decision to the resolution: uniform in this range. */
  minDays: 1,
  maxDays: 7,
  /** Share of resolutions that say the opposite of what happened. */
  wrongShare: 0.05,
} as const;

export interface ReviewFate {
  resolves: boolean;
  afterDays: number;
  outcome: 'abuse' | 'legitimate';
}

export function reviewFate(providerId: string, truth: 0 | 1): ReviewFate {
  const draw = (salt: string) => stableChance(`${salt}:${providerId}`);
  const wrong = draw('wrong') < ANALYST.wrongShare;
  const abusive = (truth === 1) !== wrong;
  return {
    resolves: draw('resolves') < ANALYST.resolvedShare,
    afterDays: ANALYST.minDays + Math.floor(draw('delay') * (ANALYST.maxDays - ANALYST.minDays + 1)),
    outcome: abusive ? 'abuse' : 'legitimate',
  };
}
