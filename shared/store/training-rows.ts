import { EVENT_TYPES, type EventType } from '../contract/endpoints.ts';
import type { DecidedEventRow, FeedbackRow } from '../learning/labels.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { decidedEventRowOf } from './decided-events.ts';
import type { StoredDispositions } from './dispositions.ts';
import type { StoredDispute } from './disputes.ts';
import { queryGsi1 } from './index-query.ts';
import { gsi1, keys, learningGsi1 } from './keys.ts';
import { queryAll } from './query-all.ts';
import { listReviews } from './reviews.ts';
import { GSI1 } from './table-definition.ts';

/**
 * The rows training needs, read from the table: the merchant's decided events (GSI1, by type and
 * time), its disputes (GSI1), the dispositions of its returns and its resolved reviews. This is one
 * row source; the learning code takes rows and never knows where they came from (in AWS at scale,
 * a DynamoDB export to S3 supplies the same rows).
 */
export interface TrainingData {
  events: DecidedEventRow[];
  feedback: FeedbackRow[];
  /** The latest event time the merchant has sent (epoch ms): training's "now". */
  latestEventTime: number | undefined;
}

/** Account events are labeled by the orders and returns of the same customer, so they need those. */
const TYPES_NEEDED: Record<EventType, readonly EventType[]> = {
  order: ['order'],
  return: ['return'],
  signup: ['signup', 'order', 'return'],
  login: ['login', 'order', 'return'],
  account: ['account', 'order', 'return'],
};

/** `since` (epoch ms): only events that arrived from then on (the job's bound: the last 180 days). */
export async function loadTrainingData(
  merchantId: string,
  eventType: EventType,
  maxEventsPerType: number,
  since = 0,
): Promise<TrainingData> {
  const needed = TYPES_NEEDED[eventType];
  const events = (
    await Promise.all(needed.map((type) => readDecidedEvents(merchantId, type, maxEventsPerType, since)))
  ).flat();
  // The newest record of every other type too, so "now" is the merchant's latest event of any kind.
  const newestOthers = (
    await Promise.all(
      EVENT_TYPES.filter((t) => !needed.includes(t)).map((type) => readDecidedEvents(merchantId, type, 1)),
    )
  ).flat();
  // A loop, not Math.max(...times): spreading past about 125,000 values overflows the call stack.
  let latestEventTime: number | undefined;
  for (const event of [events, newestOthers].flat())
    if (latestEventTime === undefined || event.at > latestEventTime) latestEventTime = event.at;
  const returnIds = events.filter((e) => e.eventType === 'return').map((e) => e.eventId);
  const [disputes, dispositions, reviews] = await Promise.all([
    needed.includes('order') ? readDisputes(merchantId, maxEventsPerType) : [],
    readDispositions(merchantId, returnIds),
    readResolvedReviews(merchantId, maxEventsPerType),
  ]);
  return {
    events,
    feedback: [...disputes, ...dispositions, ...reviews],
    latestEventTime,
  };
}

async function readDecidedEvents(merchantId: string, eventType: EventType, limit: number, since = 0) {
  const { results } = await queryGsi1(
    gsi1.eventPartitions(merchantId, eventType),
    {
      KeyConditionExpression: '#pk = :pk AND #sk >= :since',
      FilterExpression: '#entity = :type',
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey, '#sk': GSI1.sortKey, '#entity': 'entity' },
      ExpressionAttributeValues: { ':type': eventType, ':since': new Date(since).toISOString() },
    },
    (item) => decidedEventRowOf(item, eventType),
    limit,
  );
  return results;
}

async function readDisputes(merchantId: string, limit: number): Promise<FeedbackRow[]> {
  const partition = learningGsi1.disputesByMerchant(merchantId, '', '')[GSI1.partitionKey];
  const rows: FeedbackRow[] = [];
  await queryAll(
    {
      IndexName: GSI1.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
      ExpressionAttributeValues: { ':pk': partition },
      ScanIndexForward: false,
    },
    (item) => {
      const dispute = item as unknown as StoredDispute;
      rows.push({
        kind: 'dispute',
        orderId: dispute.providerOrderId,
        status: dispute.current.disputeStatus,
        at: dispute.current.timestamp,
      });
      return rows.length < limit;
    },
  );
  return rows;
}

async function readDispositions(merchantId: string, returnIds: readonly string[]): Promise<FeedbackRow[]> {
  const dispositionKeys = returnIds.map((id) => keys.returnDispositions(merchantId, id));
  const items = await batchGetItems(dispositionKeys);
  return returnIds.flatMap((returnId, i) => {
    const stored = items.get(keyString(dispositionKeys[i]!)) as StoredDispositions | undefined;
    return Object.entries(stored?.byLine ?? {}).map(([line, d]) => ({
      kind: 'disposition' as const,
      returnId,
      line: Number(line),
      condition: d.returnedItemCondition,
      outcome: d.dispositionOutcome,
      at: Date.parse(d.recordedAt),
    }));
  });
}

async function readResolvedReviews(merchantId: string, limit: number): Promise<FeedbackRow[]> {
  const { reviews } = await listReviews(merchantId, 'resolved', limit);
  return reviews.flatMap((review) =>
    review.resolution
      ? [
          {
            kind: 'review' as const,
            eventKey: review.eventKey.PK,
            outcome: review.resolution.outcome,
            at: Date.parse(review.resolution.resolvedAt),
          },
        ]
      : [],
  );
}
