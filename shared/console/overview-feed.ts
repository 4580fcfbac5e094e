import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { CONSOLE_EVENT_TYPES, OVERVIEW_LIMITS } from '../schemas/console.ts';
import { UNMARSHALL_OPTIONS } from '../store/client.ts';
import { decisionsOfItem } from '../store/decided-events.ts';
import { addOverviewCounts, type OverviewIncrement } from '../store/overview-counters.ts';

/**
 * One change of the table as a stream delivers it, whichever stream: Kinesis Data Streams for
 * DynamoDB in AWS (functions/overview-feed.ts), DynamoDB Local's stream locally (local/overview-poller.ts).
 */
export interface TableChange {
  shardId: string;
  sequenceNumber: string;
  eventName: string;
  /** The item after the change, in DynamoDB's JSON. */
  newImage: Record<string, AttributeValue> | undefined;
}

const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * A shard's changes, in order, as increments of the overview's counters, counted as the nightly
 * rollup counts them (lake/queries/overview_rollup.sql): per merchant, type and UTC day of arrival,
 * each decision's outcome, score band and deciding branch. Only inserts count: a later change of a
 * record (a return's status) is the same event, already counted.
 */
function overviewIncrementsOf(changes: readonly TableChange[]): OverviewIncrement[] {
  const increments = new Map<string, OverviewIncrement>();
  for (const { shardId, sequenceNumber, eventName, newImage } of changes) {
    if (eventName !== 'INSERT' || !newImage) continue;
    const item = unmarshall(newImage, UNMARSHALL_OPTIONS);
    const eventType = CONSOLE_EVENT_TYPES.find((type) => type === item.entity);
    if (!eventType || typeof item.merchantId !== 'string' || typeof item.createdAt !== 'string') continue;
    const day = dayOf(Date.parse(item.createdAt));
    const key = `${item.merchantId}|${eventType}|${day}|${shardId}`;
    const increment = increments.get(key) ?? {
      merchantId: item.merchantId,
      eventType,
      day,
      shardId,
      decisions: [],
    };
    increments.set(key, increment);
    for (const d of decisionsOfItem(item)) {
      const band = Math.min(OVERVIEW_LIMITS.scoreBands - 1, Math.floor(d.abuseScore / 10));
      increment.decisions.push({ sequenceNumber, cell: [d.decision, band, d.subDecision ?? ''] });
    }
  }
  return [...increments.values()];
}

/**
 * The overview feed's batch: one guarded ADD per merchant, type, day and shard it holds
 * (store/overview-counters.ts), so a redelivered batch counts once.
 */
export async function feedOverviewCounters(changes: readonly TableChange[]): Promise<void> {
  await addOverviewCounts(overviewIncrementsOf(changes));
}
