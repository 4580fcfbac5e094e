import type { ManagementUseCase } from '../http/management-handler.ts';
import { CONSOLE_EVENT_TYPES, OVERVIEW_LIMITS } from '../schemas/console.ts';
import { DECISION_OUTCOMES, type DecisionOutcome } from '../schemas/decision.ts';
import { listDecidedEvents } from '../store/decided-events.ts';
import type { OverviewCell, OverviewDayRollup } from '../store/overview-rollups.ts';
import { listOverviewRollups } from '../store/overview-rollups.ts';
import { listReviews } from '../store/reviews.ts';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 30;
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
type EventType = (typeof CONSOLE_EVENT_TYPES)[number];

/**
 * GET /v1/overview: decisions per UTC day by event type and outcome, the score distribution in bands
 * of ten, the most frequent deciding workflow branches and the open reviews, over [from, to] (whole
 * UTC days; `from` no earlier than 90 days back, as the answer's `from` says). Days before today are the nightly rollups counted in the lake (one
 * item per type and day); today's are counted from a bounded read of today's events.
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
        ...(await daysOf(caller.merchantId, eventType, from, to, today)),
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
      truncated: typed.some((t) => t.more) || open.more,
    },
  };
};

/** One type's days: the stored rollups before today, today's counted from its newest events. */
async function daysOf(
  merchantId: string,
  eventType: EventType,
  from: string,
  to: string,
  today: string,
): Promise<{ days: OverviewDayRollup[]; more: boolean }> {
  const yesterday = dayOf(Date.parse(today) - DAY_MS);
  const [stored, live] = await Promise.all([
    // DynamoDB refuses a BETWEEN whose bounds are reversed: a range ending before it starts is empty.
    from <= yesterday && from <= to
      ? listOverviewRollups(merchantId, eventType, from, to < yesterday ? to : yesterday)
      : Promise.resolve([]),
    from <= today && to >= today ? todayOf(merchantId, eventType, today) : undefined,
  ]);
  return {
    days: [...stored, ...(live && live.cells.length > 0 ? [live] : [])],
    more: live?.more ?? false,
  };
}

/**
 * Today's rollup from the day's events, at most `eventsTodayPerType` of them: the nightly item has not
 * counted the day yet, and a day's events are bounded where a merchant's history is not.
 */
async function todayOf(
  merchantId: string,
  eventType: EventType,
  today: string,
): Promise<OverviewDayRollup & { more: boolean }> {
  const { events, more } = await listDecidedEvents(
    merchantId,
    eventType,
    Date.parse(today),
    OVERVIEW_LIMITS.eventsTodayPerType,
  );
  const counts = new Map<string, OverviewCell>();
  for (const event of events)
    for (const d of event.decisions) {
      const band = Math.min(OVERVIEW_LIMITS.scoreBands - 1, Math.floor(d.abuseScore / 10));
      const key = `${d.decision}|${band}|${d.subDecision}`;
      const cell = counts.get(key) ?? [d.decision, band, d.subDecision, 0];
      cell[3]++;
      counts.set(key, cell);
    }
  return { day: today, cells: [...counts.values()], more };
}

const pick = (counts: Record<DecisionOutcome, number>) =>
  Object.fromEntries(DECISION_OUTCOMES.map((o) => [o, counts[o]])) as Record<DecisionOutcome, number>;
