import type { ManagementUseCase } from '../http/management-handler.ts';
import { CONSOLE_EVENT_TYPES, OVERVIEW_LIMITS } from '../schemas/console.ts';
import { DECISION_OUTCOMES, type DecisionOutcome } from '../schemas/decision.ts';
import { listDecidedEvents } from '../store/decided-events.ts';
import { listReviews } from '../store/reviews.ts';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;

/**
 * GET /v1/overview: decisions per UTC day by event type and outcome, the score distribution in bands
 * of ten, the most frequent reasons and the open reviews, over [from, to] (whole UTC days).
 */
export const overview: ManagementUseCase<'overview'> = async ({ caller, query }) => {
  const today = new Date().toISOString().slice(0, 10);
  const to = query.to ?? today;
  const from =
    query.from ?? new Date(Date.parse(to) - (DEFAULT_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
  const end = new Date(Date.parse(to) + DAY_MS).toISOString();
  const perDay = new Map<string, Record<DecisionOutcome, number>>();
  const scoreBands = Array.from({ length: OVERVIEW_LIMITS.scoreBands }, () => 0);
  const reasons = new Map<string, number>();
  let truncated = false;
  const listings = await Promise.all(
    CONSOLE_EVENT_TYPES.map(async (eventType) => ({
      eventType,
      ...(await listDecidedEvents(
        caller.merchantId,
        eventType,
        Date.parse(from),
        OVERVIEW_LIMITS.eventsPerType,
      )),
    })),
  );
  for (const { eventType, events, more } of listings) {
    truncated ||= more;
    for (const event of events) {
      if (event.createdAt >= end) continue;
      const key = `${event.createdAt.slice(0, 10)}|${eventType}`;
      const counts = perDay.get(key) ?? { APPROVE: 0, DECLINE: 0, REVIEW: 0 };
      for (const decision of event.decisions) {
        counts[decision.decision]++;
        scoreBands[Math.min(OVERVIEW_LIMITS.scoreBands - 1, Math.floor(decision.abuseScore / 10))]!++;
        reasons.set(decision.reason, (reasons.get(decision.reason) ?? 0) + 1);
      }
      perDay.set(key, counts);
    }
  }
  const open = await listReviews(caller.merchantId, 'open', OVERVIEW_LIMITS.openReviewsCounted);
  return {
    body: {
      from,
      to,
      days: [...perDay]
        .map(([key, counts]) => {
          const [day, eventType] = key.split('|') as [string, (typeof CONSOLE_EVENT_TYPES)[number]];
          return { day, eventType, ...pick(counts) };
        })
        .sort((a, b) => a.day.localeCompare(b.day) || a.eventType.localeCompare(b.eventType)),
      scoreBands,
      topReasons: [...reasons]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, OVERVIEW_LIMITS.topReasons)
        .map(([reason, count]) => ({ reason, count })),
      openReviews: open.reviews.length,
      truncated: truncated || open.more,
    },
  };
};

const pick = (counts: Record<DecisionOutcome, number>) =>
  Object.fromEntries(DECISION_OUTCOMES.map((o) => [o, counts[o]])) as Record<DecisionOutcome, number>;
