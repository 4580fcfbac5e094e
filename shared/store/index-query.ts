import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './client.ts';
import { GSI1 } from './table-definition.ts';

/** A GSI1 query without its table, index, direction and paging, which queryGsi1 sets. */
export type Gsi1Query = Omit<
  QueryCommandInput,
  'TableName' | 'IndexName' | 'ScanIndexForward' | 'ExclusiveStartKey' | 'Limit'
>;

interface Shard<T> {
  pk: string;
  results: { sortKey: string; result: T }[];
  startKey: Record<string, unknown> | undefined;
  /** The sort key of the last item read (kept or filtered out): the shard's unread items lie beyond it. */
  frontier: string | undefined;
  ended: boolean;
  /** Items read, before the filter and `toResult`: what a round's yield is measured on. */
  read: number;
}

/** The least yield a round assumes, so a selective filter grows the pages at most twentyfold. */
const LEAST_YIELD = 0.05;

/**
 * The one paged GSI1 query, over the shards of a listing (keys.ts): the newest (or oldest) `limit`
 * results of all shards merged by sort key, reading about `limit` items in all however long the
 * listing is. Each round reads a page from every shard that may still hold one of the first `limit`
 * (its frontier is before the `limit`-th result merged so far), the rounds' page size being what is
 * still missing spread over those shards: the first round reads `limit / shards` (plus one) from
 * each, and a shard of a skewed listing is read further only while it can still matter. Under a
 * filter (or a `toResult` that skips), pages grow by the share of items kept so far. The query
 * names its partition `:pk`. `toResult` turns an item into a result or skips it (undefined). `more`
 * says whether the listing went on; `lastSortKey` is the sort key of the last result kept (a cursor
 * for the next page).
 */
export async function queryGsi1<T>(
  partitions: readonly string[],
  query: Gsi1Query,
  toResult: (item: Record<string, unknown>) => T | undefined,
  limit: number,
  { oldestFirst = false }: { oldestFirst?: boolean } = {},
): Promise<{ results: T[]; more: boolean; lastSortKey: string | undefined }> {
  const direction = oldestFirst ? 1 : -1;
  /** Whether sort key `a` comes before `b` in the listing's order. */
  const before = (a: string, b: string) => (a < b ? direction > 0 : a > b ? direction < 0 : false);
  const shards: Shard<T>[] = partitions.map((pk) => ({
    pk,
    results: [],
    startKey: undefined,
    frontier: undefined,
    ended: false,
    read: 0,
  }));
  let merged: { sortKey: string; result: T }[] = [];
  let toRead = shards;
  let pageSize = Math.ceil(limit / Math.max(1, shards.length)) + 1;
  while (toRead.length > 0) {
    await Promise.all(toRead.map((shard) => readPage(shard, query, toResult, pageSize, oldestFirst)));
    merged = shards
      .flatMap((shard) => shard.results)
      .sort((a, b) => (before(a.sortKey, b.sortKey) ? -1 : before(b.sortKey, a.sortKey) ? 1 : 0));
    const cutoff = merged[limit - 1]?.sortKey;
    // A shard whose unread items may come before the cutoff (or any, while fewer than `limit` are in).
    toRead = shards.filter(
      (shard) => !shard.ended && (cutoff === undefined || before(shard.frontier ?? '', cutoff)),
    );
    const nearest = toRead.reduce<string | undefined>(
      (min, shard) => (min === undefined || before(shard.frontier ?? '', min) ? shard.frontier : min),
      undefined,
    );
    const settled =
      nearest === undefined ? merged.length : merged.filter((r) => !before(nearest, r.sortKey)).length;
    const read = shards.reduce((sum, shard) => sum + shard.read, 0);
    const yieldSoFar = Math.max(LEAST_YIELD, read === 0 ? 1 : merged.length / read);
    const missing = limit - Math.min(limit, settled);
    pageSize = Math.max(1, Math.ceil(missing / Math.max(1, toRead.length) / yieldSoFar));
  }
  const kept = merged.slice(0, limit);
  return {
    results: kept.map((r) => r.result),
    more: merged.length > limit || shards.some((shard) => !shard.ended),
    lastSortKey: kept.at(-1)?.sortKey,
  };
}

async function readPage<T>(
  shard: Shard<T>,
  query: Gsi1Query,
  toResult: (item: Record<string, unknown>) => T | undefined,
  pageSize: number,
  oldestFirst: boolean,
): Promise<void> {
  const page = await documentClient.send(
    new QueryCommand({
      ...query,
      ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':pk': shard.pk },
      TableName: tableName,
      IndexName: GSI1.name,
      ScanIndexForward: oldestFirst,
      Limit: pageSize,
      ExclusiveStartKey: shard.startKey,
    }),
  );
  for (const item of page.Items ?? []) {
    const result = toResult(item);
    if (result !== undefined) shard.results.push({ sortKey: String(item[GSI1.sortKey] ?? ''), result });
  }
  shard.read += page.ScannedCount ?? page.Items?.length ?? 0;
  shard.startKey = page.LastEvaluatedKey;
  shard.ended = page.LastEvaluatedKey === undefined;
  const last = page.LastEvaluatedKey?.[GSI1.sortKey] ?? page.Items?.at(-1)?.[GSI1.sortKey];
  if (last !== undefined) shard.frontier = String(last);
}
