import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { feedOverviewCounters } from '../../shared/console/overview-feed.ts';
import { documentClient, dynamoDbClient, tableName } from '../../shared/store/client.ts';
import { staleVelocityBuckets } from '../../shared/store/distinct-windows.ts';
import { ensureTable } from '../../shared/store/ensure-table.ts';
import { staleBuckets } from '../../shared/store/history-windows.ts';

/**
 * Whole-table snapshots, to prove a refused or failed request changed nothing. Suites that take
 * them run on a table of their own (a TABLE_NAME set in vi.hoisted, `createOwnTable` in beforeAll),
 * so a scan stays small and no other suite writes meanwhile. Test tables have no stream unless the
 * suite feeds a lake from it (`stream: true`): DynamoDB Local slows with every stream record it holds.
 */
export function createOwnTable({ stream = false }: { stream?: boolean } = {}): Promise<void> {
  return ensureTable(dynamoDbClient, tableName, { stream });
}

/**
 * Drops a suite's own table when it is done: DynamoDB Local (one in-memory database for the run)
 * slows as it grows, for every table in it.
 */
export async function dropOwnTable(table = tableName): Promise<void> {
  await dynamoDbClient.send(new DeleteTableCommand({ TableName: table }));
}

/**
 * Every item by key, as canonical text. The rate-limit buckets are left out: every request takes a
 * token by design (that is the limiter doing its job, not the request's effect).
 */
export async function tableSnapshot(table = tableName): Promise<Map<string, string>> {
  const items = new Map<string, string>();
  for await (const item of scan(table)) {
    if (String(item.PK).endsWith('#RATELIMIT')) continue;
    items.set(`${item.PK}|${item.SK}`, stableText(item));
  }
  return items;
}

/**
 * One merchant's items (its key holds its id), as every read from an identity's latest event on
 * sees them: time buckets already stale as of its newest are left out. Events written concurrently
 * (an import) may leave such a bucket that live delivery in time order had already pruned, and race
 * on an item's first and last sighting (identity-history.ts says why): the merchant's signup counter
 * takes every signup, so it shows. No window reads a stale bucket and the next write removes it;
 * nothing reads the counter's sightings, so they are left out too.
 */
export async function merchantItems(merchantId: string, table?: string): Promise<Map<string, string>> {
  const items = new Map<string, string>();
  for await (const item of scan(table ?? tableName)) {
    // Rate-limit counters and history imports' status items are bookkeeping, not what was recorded.
    const pk = String(item.PK);
    if (!pk.includes(merchantId) || pk.endsWith('#RATELIMIT') || pk.includes('#HISTORYIMPORT#')) continue;
    const latest = newestTime(item);
    if (latest !== undefined)
      for (const stale of [...staleBuckets(item, latest), ...staleVelocityBuckets(item, latest)])
        delete item[stale];
    // The merchant's signup counters are written by every signup: which one wrote last (its times,
    // the expiry it set) depends on how concurrent writers interleaved, not on what was recorded.
    if (item.kind === 'signupTraffic') {
      delete item.firstSeenAt;
      delete item.lastSeenAt;
      delete item.expiresAt;
    }
    items.set(`${item.PK}|${item.SK}`, stableText(item));
  }
  return items;
}

/** An identity item's latest time: its last sighting, or the start of its newest quarter-hour bucket. */
function newestTime(item: Record<string, unknown>): number | undefined {
  if (item.kind === undefined) return undefined;
  const quarters = Object.keys(item).flatMap((name) => {
    const match = /^q(\d+)[A-Za-z]+$/.exec(name);
    return match ? [Number(match[1]) * 15 * 60_000] : [];
  });
  const last = typeof item.lastSeenAt === 'number' ? item.lastSeenAt : 0;
  return Math.max(last, ...quarters);
}

/** Copies this suite's items whose `PK|SK` passes `keep` into another (existing) table. */
export async function copyTable(target: string, keep: (key: string) => boolean): Promise<void> {
  const items: Record<string, unknown>[] = [];
  for await (const item of scan(tableName)) if (keep(`${item.PK}|${item.SK}`)) items.push(item);
  for (let i = 0; i < items.length; i += 25) {
    const batch = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    await documentClient.send(new BatchWriteCommand({ RequestItems: { [target]: batch } }));
  }
}

async function* scan(table: string): AsyncGenerator<Record<string, unknown>> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    yield* page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start);
}

/** Every item of a table, as stored (a full, consistent Scan). */
export async function allItems(table = tableName): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const item of scan(table)) items.push(item);
  return items;
}

/** Keys whose items differ between two snapshots (added, removed or changed). */
export function changedKeys(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((key) => before.get(key) !== after.get(key)).sort();
}

/** JSON with sorted keys, and DynamoDB sets as sorted arrays (JSON.stringify drops their members). */
function stableText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Set) return [...v].map(String).sort();
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  });
}

/**
 * The overview's counters fed from the table's decided events as they stand, each as the insert a
 * stream would deliver (suites whose table has no stream): the counter items a merchant would have.
 */
export async function feedOverviewFromTable(): Promise<void> {
  const items = await allItems();
  await feedOverviewCounters(
    items.map((item, i) => ({
      shardId: 'table-snapshot',
      sequenceNumber: String(i + 1),
      eventName: 'INSERT',
      newImage: marshall(item, { removeUndefinedValues: true }),
    })),
  );
}
