import type { ManagementUseCase } from '../http/management-handler.ts';
import { CONSOLE_EVENT_TYPES, OVERVIEW_LIMITS } from '../schemas/console.ts';
import { DECISION_OUTCOMES, type DecisionOutcome } from '../schemas/decision.ts';
import { listOverviewCounters } from '../store/overview-counters.ts';
import { listOverviewRollups, type OverviewDayRollup } from '../store/overview-rollups.ts';
import { listReviews } from '../store/reviews.ts';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
type EventType = (typeof CONSOLE_EVENT_TYPES)[number];

/**
 * GET /v1/overview: decisions per UTC day by event type and outcome, the score distribution in bands
 * of ten, the most frequent deciding workflow branches and the open reviews, over [from, to] (whole
 * UTC days; `from` no earlier than 90 days back, as the answer's `from` says). Days before today are
 * the nightly rollups counted in the lake (one item per type and day); today's, and a day the rollup
 * has not reached yet, the counters the table's stream keeps (console/overview-feed.ts). It reads the
 * same number of items for a merchant of ten events as for one of ten million.
 */
export const overview: ManagementUseCase<'overview'> = async ({ caller, query }) => {
  const today = dayOf(Date.now());
  const to = query.to ?? today;
  // The rollups keep the last 90 days: an earlier `from` reads from there, and the answer says so.
  const earliest = dayOf(Date.now() - (OVERVIEW_LIMITS.days - 1) * DAY_MS);
  const asked = query.from ?? dayOf(Date.parse(to) - (DEFAULT_DAYS - 1) * DAY_MS);
  const from = asked.localeCompare(earliest) < 0 ? earliest : asked;
  const [typed, open] = await Promise.all([
    Promise.all(
      CONSOLE_EVENT_TYPES.map(async (eventType) => ({
        eventType,
        days: await daysOf(caller.merchantId, eventType, from, to, today),
      })),
    ),
    listReviews(caller.merchantId, 'open', OVERVIEW_LIMITS.openReviewsCounted),
  ]);
  const scoreBands = Array.from({ length: OVERVIEW_LIMITS.scoreBands }, () => 0);
  const reasons = new Map<string, number>();
  const days = typed.flatMap(({ eventType, days }) =>
    days.map(({ day, cells }) => {
      const counts: Record<DecisionOutcome, number> = { APPROVE: 0, DECLINE: 0, REVIEW: 0 };
      for (const [outcome, band, branch, parts] of cells) {
        if (outcome in counts) counts[outcome as DecisionOutcome] += parts;
        scoreBands[band]! += parts;
        if (branch) reasons.set(branch, (reasons.get(branch) ?? 0) + parts);
      }
      return { day, eventType, ...pick(counts) };
    }),
  );
  return {
    body: {
      from,
      to,
      days: days.sort((a, b) => a.day.localeCompare(b.day) || a.eventType.localeCompare(b.eventType)),
      scoreBands,
      topReasons: [...reasons]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, OVERVIEW_LIMITS.topReasons)
        .map(([reason, count]) => ({ reason, count })),
      openReviews: open.reviews.length,
    },
  };
};

/**
 * One type's days: the nightly rollups, and for the last `countedDays` days the counters the stream
 * keeps, where the rollup has not counted the day yet (today, or a night the item was late). Two
 * Queries: at most one rollup item per day and `countedDays` counter items.
 */
async function daysOf(
  merchantId: string,
  eventType: EventType,
  from: string,
  to: string,
  today: string,
): Promise<OverviewDayRollup[]> {
  const counted = dayOf(Date.parse(today) - (OVERVIEW_LIMITS.countedDays - 1) * DAY_MS);
  const countedFrom = from < counted ? counted : from;
  const [stored, live] = await Promise.all([
    // DynamoDB refuses a BETWEEN whose bounds are reversed: a range ending before it starts is empty.
    from <= to ? listOverviewRollups(merchantId, eventType, from, to) : Promise.resolve([]),
    countedFrom <= to ? listOverviewCounters(merchantId, eventType, countedFrom, to) : Promise.resolve([]),
  ]);
  const rolledUp = new Set(stored.map(({ day }) => day));
  return [...stored, ...live.filter(({ day, cells }) => !rolledUp.has(day) && cells.length > 0)];
}

const pick = (counts: Record<DecisionOutcome, number>) =>
  Object.fromEntries(DECISION_OUTCOMES.map((o) => [o, counts[o]])) as Record<DecisionOutcome, number>;
