import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { saturating } from './signal.ts';

/**
 * A farm signs its accounts up on one e-mail domain (often its own), so that domain takes a far
 * larger share of the merchant's signups in an hour than it usually does. A share, not a count: a
 * launch, a sale or a TV spot makes every domain busier at once and moves no share, and a merchant's
 * first hours, with no month behind them, cannot call anything unusual.
 *
 * - The domain's usual share is its signups over the merchant's in the 30 days before the last hour,
 *   with one signup added to each (a domain never seen before is expected at one signup's share).
 * - Expected: that share of the merchant's signups in the last hour. The excess is what lies above
 *   the one-sided 99.9 % bound of a Poisson count with that mean (mean + 3 sqrt(mean + 1): a few
 *   colleagues signing up together on their company's domain stay inside it).
 * - The value is log2(1 + excess), weighed by how much baseline there is: baseline / (baseline +
 *   `DOMAIN_BASELINE_SIGNUPS`), so a merchant with 100 signups in its month counts half, one with
 *   1,000 counts 91 %, and one in its first hour counts nothing.
 */
export const DOMAIN_BASELINE_SIGNUPS = 100;
const POISSON_Z = 3;

/** Signups in the last hour, in the 30 days before it, and ever. */
export interface SignupCounts {
  lastHour: number;
  baseline: number;
  lifetime: number;
}

export interface DomainBurst {
  signups: number;
  expected: number;
  value: number;
}

export function domainBurst(
  domain: Omit<SignupCounts, 'lifetime'>,
  merchant: Omit<SignupCounts, 'lifetime'>,
): DomainBurst {
  const usualShare = (domain.baseline + 1) / (merchant.baseline + 1);
  const expected = usualShare * merchant.lastHour;
  const excess = Math.max(0, domain.lastHour - (expected + POISSON_Z * Math.sqrt(expected + 1)));
  const weight = merchant.baseline / (merchant.baseline + DOMAIN_BASELINE_SIGNUPS);
  return { signups: domain.lastHour, expected, value: weight * saturating(excess) };
}

/** Earlier signups on an identity (a domain, or every shard of the merchant's counter summed). */
export function signupCounts(snapshots: readonly IdentitySnapshot[]): SignupCounts {
  let lastHour = 0;
  let month = 0;
  let lifetime = 0;
  for (const snapshot of snapshots) {
    const counts = snapshot.count(METRIC.signups);
    lastHour += counts.h1;
    month += counts.d30;
    lifetime += counts.lifetime;
  }
  return { lastHour, baseline: Math.max(0, month - lastHour), lifetime };
}
