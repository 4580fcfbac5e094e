import type { EventType } from '../contract/endpoints.ts';
import type { DecidedEventRow, FeedbackRow } from '../learning/labels.ts';
import type { TradeoffHistogram } from '../learning/tradeoffs.ts';
import { OVERVIEW_LIMITS } from '../schemas/console.ts';
import type { OverviewDayRollup } from '../store/overview-rollups.ts';
import type { LakeQueryRunner } from './lake-queries.ts';
import { readOverviewRollup } from './overview-rollup.ts';
import { dayOf, readLatestEventTime, readTradeoffHistogram } from './tradeoff-histogram.ts';

/**
 * A training run's rows, read from the lake by its queries (queries/training_*.sql): the events of
 * one type in the window, bounded by sampling (every part with feedback, the others at `rate`), the
 * feedback since the window opened, and, for account events, the orders and returns whose abuse they
 * inherit. The learning code (labels.ts, train.ts) takes these rows as it took the table's. The same
 * step counts the type's 90 days for the trade-off report (tradeoff-histogram.ts) and the overview
 * (overview-rollup.ts).
 */
export interface TrainingSet {
  events: DecidedEventRow[];
  feedback: FeedbackRow[];
  /** The latest event time the merchant has sent (epoch ms): training's "now". */
  latestEventTime: number | undefined;
  /** The share of parts without feedback read: training keeps negatives below it (sampling.ts). */
  negativeSamplingRate: number;
  /** Parts in the window, before sampling. */
  partsInWindow: number;
  /** The type's trade-off histogram over the last 90 days, read by the same item for the console. */
  tradeoffs: TradeoffHistogram;
  /** The type's daily overview rollups over the last 90 days, today's so far included. */
  overview: OverviewDayRollup[];
}

const DAY_MS = 86_400_000;
/** Account events inherit abuse from orders and returns: their rows come along. */
const ACCOUNT_TYPES: readonly EventType[] = ['signup', 'login', 'account'];

export async function readTrainingSet(
  run: LakeQueryRunner,
  input: { merchantId: string; eventType: EventType; now: number; windowDays: number; maxRows: number },
): Promise<TrainingSet> {
  const { merchantId, eventType } = input;
  const fromDay = dayOf(input.now - input.windowDays * DAY_MS);
  const toDay = dayOf(input.now);
  const window = { merchant_id: merchantId, kind: eventType, from_day: fromDay, to_day: toDay };
  const [[counted], latestEventTime] = await Promise.all([
    run('event_count', window),
    readLatestEventTime(run, merchantId, fromDay),
  ]);
  const partsInWindow = Number(counted?.parts ?? 0);
  const negativeSamplingRate = partsInWindow <= input.maxRows ? 1 : input.maxRows / partsInWindow;
  const linkIdentities = ACCOUNT_TYPES.includes(eventType);
  const [events, feedback, sources, tradeoffs, overview] = await Promise.all([
    run('training_events', {
      ...window,
      link_identities: linkIdentities,
      negative_rate: negativeSamplingRate,
    }),
    run('training_feedback', window),
    linkIdentities ? run('training_sources', window) : Promise.resolve([]),
    readTradeoffHistogram(run, { merchantId, eventType, now: input.now, latestEventTime }),
    readOverviewRollup(run, {
      merchantId,
      eventType,
      fromDay: dayOf(input.now - OVERVIEW_LIMITS.days * DAY_MS),
      toDay,
    }),
  ]);
  return {
    events: [
      ...eventRows(eventType, events),
      ...eventRows(undefined, sources).filter((e) => e.eventType !== eventType),
    ],
    feedback: feedback.flatMap(feedbackRow),
    latestEventTime,
    negativeSamplingRate,
    partsInWindow,
    tradeoffs,
    overview,
  };
}

/** Rows (one per part, ordered by event) back into events with their parts. */
function eventRows(
  eventType: EventType | undefined,
  rows: readonly Record<string, unknown>[],
): DecidedEventRow[] {
  const byKey = new Map<string, DecidedEventRow & { parts: DecidedEventRow['parts'][number][] }>();
  for (const row of rows) {
    const key = String(row.event_key);
    let event = byKey.get(key);
    if (!event) {
      event = {
        eventType: (eventType ?? row.kind) as EventType,
        eventKey: key,
        eventId: String(row.event_id),
        at: Number(row.event_at),
        identities: Array.isArray(row.identities) ? row.identities.map(String) : [],
        parts: [],
      };
      byKey.set(key, event);
    }
    event.parts[Number(row.part)] = {
      signals: JSON.parse(String(row.signals)) as Record<string, number>,
      abuseScore: Number(row.abuse_score),
      modelVersion: String(row.model_version),
      ...(row.decision === null ? {} : { decision: String(row.decision) }),
      ...(row.value === null ? {} : { value: Number(row.value) }),
    };
  }
  return [...byKey.values()];
}

function feedbackRow(row: Record<string, unknown>): FeedbackRow[] {
  const at = Number(row.feedback_at);
  switch (row.kind) {
    case 'dispute':
      return [
        {
          kind: 'dispute',
          orderId: String(row.order_id),
          status: row.dispute_status as 'OPEN' | 'RESPONDED' | 'WON' | 'LOST',
          at,
        },
      ];
    case 'disposition':
      return [
        {
          kind: 'disposition',
          returnId: String(row.return_id),
          line: Number(row.line),
          condition: String(row.item_condition),
          outcome: String(row.disposition_outcome),
          at,
        },
      ];
    case 'review':
      return [
        {
          kind: 'review',
          eventKey: String(row.event_key),
          outcome: row.review_outcome as 'abuse' | 'legitimate',
          at,
        },
      ];
    default:
      return [];
  }
}
