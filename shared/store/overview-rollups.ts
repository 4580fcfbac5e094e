import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { forEachConcurrently } from '../concurrency.ts';
import type { EventType } from '../contract/endpoints.ts';
import { retainUntil } from '../retention.ts';
import { documentClient, tableName } from './client.ts';
import { overviewKeys } from './keys.ts';
import { queryAll } from './query-all.ts';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from './table-definition.ts';

/** Decision parts of one outcome, score band (of ten points) and deciding workflow branch. */
export type OverviewCell = [outcome: string, scoreBand: number, subDecision: string, parts: number];

/** One UTC day of a merchant's decisions of one type, as the overview counts them. */
export interface OverviewDayRollup {
  day: string;
  cells: OverviewCell[];
}

/**
 * Puts at once: a training item writes up to 180 days, and all of them at once reset sockets to
 * DynamoDB Local on a loaded machine (an eval's retraining and `models train` died there).
 */
const ROLLUP_WRITE_CONCURRENCY = 8;

/**
 * The overview's daily rollups: one item per merchant, event type and UTC day, replaced by each
 * nightly item from the lake. An item holds counts (3 outcomes x 10 score bands x the merchant's
 * workflow branches), never events, so a day is a few kilobytes whatever it held. Never read or
 * written on the decision path.
 */
export async function saveOverviewRollups(
  merchantId: string,
  eventType: EventType,
  days: readonly OverviewDayRollup[],
): Promise<void> {
  await forEachConcurrently(days, ROLLUP_WRITE_CONCURRENCY, async ({ day, cells }) => {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...overviewKeys.day(merchantId, eventType, day),
          entity: 'overviewRollup',
          day,
          cells,
          // Counts of the day's events: kept as long as they.
          [TTL_ATTRIBUTE]: retainUntil('events', Date.parse(day)),
        },
      }),
    );
  });
}

/** The rollups of [fromDay, toDay], oldest first: one Query reading at most one item per day. */
export function listOverviewRollups(
  merchantId: string,
  eventType: EventType,
  fromDay: string,
  toDay: string,
): Promise<OverviewDayRollup[]> {
  return queryOverviewDays(
    merchantId,
    eventType,
    overviewKeys.dayPrefix,
    fromDay,
    toDay,
    (item) => item.cells as OverviewCell[],
  );
}

/**
 * The items of one kind (sort-key prefix) of a merchant's type's overview partition for the days
 * [fromDay, toDay], oldest first, each turned into its day's cells by `cellsOf`: one Query, at most
 * one item per day.
 */
export async function queryOverviewDays(
  merchantId: string,
  eventType: EventType,
  prefix: string,
  fromDay: string,
  toDay: string,
  cellsOf: (item: Record<string, unknown>) => OverviewCell[],
): Promise<OverviewDayRollup[]> {
  const days: OverviewDayRollup[] = [];
  await queryAll(
    {
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#sk': SORT_KEY },
      ExpressionAttributeValues: {
        ':pk': overviewKeys.partition(merchantId, eventType),
        ':from': `${prefix}${fromDay}`,
        ':to': `${prefix}${toDay}`,
      },
    },
    (item) => days.push({ day: String(item.day), cells: cellsOf(item) }) > 0,
  );
  return days;
}
