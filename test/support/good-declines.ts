import type { Outcome } from './deliver-live.ts';
import type { ScoredKind } from './live-traffic/delivery.ts';

/**
 * What honest traffic got, per event type: how many were declined or sent to review, and why. The
 * budgets are the product's (docs: good customers declined at most 0.5 %, reviewed at most 2 %).
 */
export const GOOD_DECLINED_BUDGET = 0.005;
const GOOD_REVIEWED_BUDGET = 0.02;

export interface KindShare {
  kind: ScoredKind;
  events: number;
  declined: Outcome[];
  reviewed: Outcome[];
}

export function shareOf(kind: ScoredKind, outcomes: readonly Outcome[]): KindShare {
  // Answered events only: a refused request (its own test fails) has no decision to count.
  const scored = outcomes.filter((o) => o.delivery.kind === kind && o.decision !== undefined);
  return {
    kind,
    events: scored.length,
    declined: scored.filter((o) => o.decision === 'DECLINE'),
    reviewed: scored.filter((o) => o.decision === 'REVIEW'),
  };
}

const percent = (count: number, of: number) => `${of === 0 ? '0.00' : ((100 * count) / of).toFixed(2)} %`;

/** e.g. `signup: 14 of 2000 declined (0.70 %), 3 reviewed (0.15 %)`. */
export function describeShare(share: KindShare): string {
  const { kind, events, declined, reviewed } = share;
  return (
    `${kind}: ${declined.length} of ${events} declined (${percent(declined.length, events)}), ` +
    `${reviewed.length} reviewed (${percent(reviewed.length, events)}` +
    `${reviewed.length > events * GOOD_REVIEWED_BUDGET ? ', over the 2 % review budget' : ''})`
  );
}

/**
 * The decision reasons of `outcomes`, grouped with their numbers, units and plurals blanked (`device
 * first seen # <time> ago` is one reason however long ago), most frequent first, each with its count, one example
 * and the honest behaviours (cohorts) it hit; then the reasons' parts (one per signal) with counts.
 * That is what the engineer fixing the signals reads.
 */
export function reasonsReport(outcomes: readonly Outcome[], limit = 12): string {
  const byReason = groupBy(outcomes, (o) => [reasonKey(o.reason ?? '(no reason)')]);
  const byPart = groupBy(outcomes, (o) => (o.reason ?? '(no reason)').split('; ').map(blankNumbers));
  const reasons = byReason.slice(0, limit).map(({ key, count, members }) => {
    const cohorts = tally(members.map((o) => o.delivery.cohort))
      .slice(0, 4)
      .map(([cohort, n]) => `${cohort} ${n}`)
      .join(', ');
    return `  ${String(count).padStart(5)} × ${key}\n          e.g. "${members[0]!.reason}"\n          (${cohorts})`;
  });
  if (byReason.length > limit) reasons.push(`  … and ${byReason.length - limit} more reasons`);
  const parts = byPart.slice(0, limit).map(({ key, count }) => `  ${String(count).padStart(5)} × ${key}`);
  return `${reasons.join('\n')}\n  by part of the reason:\n${parts.join('\n')}`;
}

/** A reason with its numbers, units and plurals blanked, its parts in a fixed order: one key per kind of reason. */
function reasonKey(reason: string): string {
  return reason.split('; ').map(blankNumbers).sort().join('; ');
}

function blankNumbers(text: string): string {
  return text
    .replace(/\d+(\.\d+)?/g, '#')
    .replace(/\bthe last (second|minute|hour|day|week)\b/g, 'the last # $1')
    .replace(/# (seconds?|minutes?|hours?|days?|weeks?)\b/g, '# <time>')
    .replace(/(# (?:\w+ )?)(\w+[^s])s\b/g, '$1$2');
}

function groupBy(
  outcomes: readonly Outcome[],
  keys: (outcome: Outcome) => string[],
): { key: string; count: number; members: Outcome[] }[] {
  const groups = new Map<string, Outcome[]>();
  for (const outcome of outcomes) {
    for (const key of new Set(keys(outcome))) groups.set(key, [...(groups.get(key) ?? []), outcome]);
  }
  return [...groups]
    .map(([key, members]) => ({ key, count: members.length, members }))
    .sort((a, b) => b.count - a.count);
}

function tally(values: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
}
