import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { CONSOLE_EVENT_TYPES, OVERVIEW_LIMITS } from '../schemas/console.ts';
import { UNMARSHALL_OPTIONS } from '../store/client.ts';
import { decisionsOfItem } from '../store/decided-events.ts';
import { addOverviewCounts, type OverviewIncrement } from '../store/overview-counters.ts';
import type { OverviewCell } from '../store/overview-rollups.ts';

type EventType = (typeof CONSOLE_EVENT_TYPES)[number];
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/**
 * A batch of newly recorded decided events counted as the nightly rollup counts them
 * (lake/queries/overview_rollup.sql): per merchant, type and UTC day of arrival, the parts by outcome,
 * score band and deciding branch. Only inserts count: a later change of a record (a return's status)
 * is the same event, already counted.
 */
function overviewIncrementsOf(inserted: readonly Record<string, unknown>[]): OverviewIncrement[] {
  const items = new Map<string, { increment: OverviewIncrement; cells: Map<string, OverviewCell> }>();
  for (const item of inserted) {
    const eventType = CONSOLE_EVENT_TYPES.find((type) => type === item.entity);
    if (!eventType || typeof item.merchantId !== 'string' || typeof item.createdAt !== 'string') continue;
    const day = dayOf(Date.parse(item.createdAt));
    const itemKey = `${item.merchantId}|${eventType}|${day}`;
    const entry = items.get(itemKey) ?? {
      increment: { merchantId: item.merchantId, eventType: eventType as EventType, day, cells: [] },
      cells: new Map<string, OverviewCell>(),
    };
    items.set(itemKey, entry);
    for (const d of decisionsOfItem(item)) {
      const band = Math.min(OVERVIEW_LIMITS.scoreBands - 1, Math.floor(d.abuseScore / 10));
      const branch = d.subDecision ?? '';
      const cellKey = `${d.decision}|${band}|${branch}`;
      const cell = entry.cells.get(cellKey) ?? [d.decision, band, branch, 0];
      cell[3]++;
      entry.cells.set(cellKey, cell);
    }
  }
  return [...items.values()]
    .filter(({ cells }) => cells.size > 0)
    .map(({ increment, cells }) => ({ ...increment, cells: [...cells.values()] }));
}

/**
 * The overview feed's stream batch: one ADD per merchant, type and day it holds. Delivery is at
 * least once: a batch retried after some of its updates landed counts those again (bounded by the
 * batch, and only until the nightly rollup recounts the day from the lake).
 */
export async function feedOverviewCounters(records: readonly DynamoDBRecord[]): Promise<void> {
  const inserted = records.flatMap((record) =>
    record.eventName === 'INSERT' && record.dynamodb?.NewImage
      ? [unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>, UNMARSHALL_OPTIONS)]
      : [],
  );
  await addOverviewCounts(overviewIncrementsOf(inserted));
}
