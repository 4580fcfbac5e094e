import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../contract/endpoints.ts';
import { retainUntil } from '../retention.ts';
import { documentClient, tableName } from './client.ts';
import { overviewKeys } from './keys.ts';
import type { OverviewCell, OverviewDayRollup } from './overview-rollups.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';

/** What one stream batch adds to one merchant's type and day: its cells' parts. */
export interface OverviewIncrement {
  merchantId: string;
  eventType: EventType;
  day: string;
  cells: OverviewCell[];
}

/** Each cell is a top-level number attribute, so a first ADD creates it (a nested map path would not). */
const CELL_PREFIX = 'cell|';
const cellAttribute = ([outcome, band, branch]: OverviewCell) => `${CELL_PREFIX}${outcome}|${band}|${branch}`;

/**
 * The day's counters of the overview, fed from the table's stream (console/overview-feed.ts): one
 * UpdateItem per merchant, type and day of a batch, ADDing each cell's parts. Never on the decision
 * path: the request's transaction writes nothing more.
 */
export async function addOverviewCounts(increments: readonly OverviewIncrement[]): Promise<void> {
  await Promise.all(
    increments.map(({ merchantId, eventType, day, cells }) => {
      const names: Record<string, string> = { '#ttl': TTL_ATTRIBUTE, '#entity': 'entity', '#day': 'day' };
      const values: Record<string, unknown> = {
        ':ttl': retainUntil('events', Date.parse(day)),
        ':entity': 'overviewCounters',
        ':day': day,
      };
      const adds = cells.map((cell, i) => {
        names[`#c${i}`] = cellAttribute(cell);
        values[`:c${i}`] = cell[3];
        return `#c${i} :c${i}`;
      });
      return documentClient.send(
        new UpdateCommand({
          TableName: tableName,
          Key: overviewKeys.counters(merchantId, eventType, day),
          UpdateExpression: `SET #ttl = :ttl, #entity = :entity, #day = :day ADD ${adds.join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    }),
  );
}

/** One day's counters as a rollup (the overview counts both alike); one GetItem. */
export async function getOverviewCounters(
  merchantId: string,
  eventType: EventType,
  day: string,
): Promise<OverviewDayRollup> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: overviewKeys.counters(merchantId, eventType, day) }),
  );
  const cells = Object.entries(Item ?? {}).flatMap(([name, parts]): OverviewCell[] => {
    if (!name.startsWith(CELL_PREFIX)) return [];
    const [outcome = '', band = '0', ...branch] = name.slice(CELL_PREFIX.length).split('|');
    return [[outcome, Number(band), branch.join('|'), Number(parts)]];
  });
  return { day, cells };
}
