import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../contract/endpoints.ts';
import { OVERVIEW_LIMITS } from '../schemas/console.ts';
import { documentClient, tableName } from './client.ts';
import { overviewKeys } from './keys.ts';
import { type OverviewCell, type OverviewDayRollup, queryOverviewDays } from './overview-rollups.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';

/** One decision the table's stream carried: where its change sits in its shard, and its cell. */
interface StreamedDecision {
  sequenceNumber: string;
  cell: [outcome: string, scoreBand: number, subDecision: string];
}

/** What one shard's batch adds to one merchant's type and day: its decisions, in shard order. */
export interface OverviewIncrement {
  merchantId: string;
  eventType: EventType;
  day: string;
  shardId: string;
  decisions: StreamedDecision[];
}

/** Each cell is a top-level number attribute, so a first ADD creates it (a nested map path would not). */
const CELL_PREFIX = 'cell|';
const cellAttribute = ([outcome, band, branch]: StreamedDecision['cell']) =>
  `${CELL_PREFIX}${outcome}|${band}|${branch}`;
/** Per shard, the newest change counted into the item: the guard that makes a redelivery count once. */
const shardAttribute = (shardId: string) => `shard|${shardId}`;
/**
 * Sequence numbers are decimal strings of up to 128 digits (Kinesis); padded to one width, they
 * compare as strings in a condition the way they compare as numbers.
 */
const position = (sequenceNumber: string) => sequenceNumber.padStart(128, '0');
const DAY_MS = 86_400_000;

/**
 * The day's counters of the overview, fed from the table's stream (console/overview-feed.ts): one
 * UpdateItem per merchant, type, day and shard of a batch, ADDing each cell's parts. Never on the
 * decision path: the request's transaction writes nothing more.
 *
 * Delivery is at least once: a batch is retried whole, or in halves (bisected), after some of its
 * updates landed. Each item keeps, per shard, the newest change it counted, and an update applies
 * only if its first change is newer. One that is refused (a redelivery) reads that mark and adds
 * only the changes after it, so a redelivered change, whatever batch it comes back in, counts once.
 * Shards must be read in order, one batch at a time (the consumer's parallelization factor is 1).
 */
export async function addOverviewCounts(increments: readonly OverviewIncrement[]): Promise<void> {
  await Promise.all(increments.filter((i) => i.decisions.length > 0).map(addOnce));
}

async function addOnce(increment: OverviewIncrement): Promise<void> {
  let decisions = increment.decisions;
  let mark: string | undefined;
  for (;;) {
    try {
      await documentClient.send(countersUpdate(increment, decisions, mark));
      return;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    }
    mark = await shardMark(increment);
    const after = mark;
    decisions = decisions.filter((d) => after === undefined || position(d.sequenceNumber) > after);
    if (decisions.length === 0) return;
  }
}

/**
 * The ADD of `decisions`' cells, guarded: on the first try, the shard's mark must be older than the
 * first decision; after a refusal, it must still be the `mark` just read (another redelivery may
 * have moved it since: then read again).
 */
function countersUpdate(
  { merchantId, eventType, day, shardId }: OverviewIncrement,
  decisions: readonly StreamedDecision[],
  mark: string | undefined,
): UpdateCommand {
  const parts = new Map<string, number>();
  for (const { cell } of decisions) parts.set(cellAttribute(cell), (parts.get(cellAttribute(cell)) ?? 0) + 1);
  const names: Record<string, string> = {
    '#ttl': TTL_ATTRIBUTE,
    '#entity': 'entity',
    '#day': 'day',
    '#shard': shardAttribute(shardId),
  };
  const values: Record<string, unknown> = {
    // Kept until the nightly rollup has surely replaced the day, then gone.
    ':ttl': Math.floor((Date.parse(day) + (OVERVIEW_LIMITS.countedDays + 1) * DAY_MS) / 1000),
    ':entity': 'overviewCounters',
    ':day': day,
    ':newest': position(decisions.at(-1)!.sequenceNumber),
  };
  const adds = [...parts].map(([attribute, count], i) => {
    names[`#c${i}`] = attribute;
    values[`:c${i}`] = count;
    return `#c${i} :c${i}`;
  });
  let condition: string;
  if (mark !== undefined) {
    condition = '#shard = :mark';
    values[':mark'] = mark;
  } else {
    condition = 'attribute_not_exists(#shard) OR #shard < :first';
    values[':first'] = position(decisions[0]!.sequenceNumber);
  }
  return new UpdateCommand({
    TableName: tableName,
    Key: overviewKeys.counters(merchantId, eventType, day),
    UpdateExpression: `SET #ttl = :ttl, #entity = :entity, #day = :day, #shard = :newest ADD ${adds.join(', ')}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

/** The newest change of the shard the item counted (read strongly: it was just refused on it). */
async function shardMark({ merchantId, eventType, day, shardId }: OverviewIncrement) {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: overviewKeys.counters(merchantId, eventType, day),
      ProjectionExpression: '#shard',
      ExpressionAttributeNames: { '#shard': shardAttribute(shardId) },
      ConsistentRead: true,
    }),
  );
  const mark = Item?.[shardAttribute(shardId)];
  return typeof mark === 'string' ? mark : undefined;
}

/** The counters of [fromDay, toDay] as rollups (the overview counts both alike): one Query. */
export function listOverviewCounters(
  merchantId: string,
  eventType: EventType,
  fromDay: string,
  toDay: string,
): Promise<OverviewDayRollup[]> {
  return queryOverviewDays(merchantId, eventType, overviewKeys.countersPrefix, fromDay, toDay, (item) =>
    Object.entries(item).flatMap(([name, parts]): OverviewCell[] => {
      if (!name.startsWith(CELL_PREFIX)) return [];
      const [outcome = '', band = '0', ...branch] = name.slice(CELL_PREFIX.length).split('|');
      return [[outcome, Number(band), branch.join('|'), Number(parts)]];
    }),
  );
}
