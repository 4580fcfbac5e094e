import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './client.ts';
import { GSI1 } from './table-definition.ts';

/** A GSI1 query without its table, index, direction and paging, which queryGsi1 sets. */
export type Gsi1Query = Omit<
  QueryCommandInput,
  'TableName' | 'IndexName' | 'ScanIndexForward' | 'ExclusiveStartKey' | 'Limit'
>;

/**
 * The one paged GSI1 query, over the shards of a listing (keys.ts): each partition is read newest
 * first (or oldest first), page after page until `limit` results are taken or it ends, all at once;
 * the results are merged by sort key and the first `limit` kept. The query names its partition `:pk`.
 * `toResult` turns an item into a result or skips it (undefined). `more` says whether the listing went
 * on; `lastSortKey` is the sort key of the last result kept (a cursor for the next page).
 */
export async function queryGsi1<T>(
  partitions: readonly string[],
  query: Gsi1Query,
  toResult: (item: Record<string, unknown>) => T | undefined,
  limit: number,
  { oldestFirst = false }: { oldestFirst?: boolean } = {},
): Promise<{ results: T[]; more: boolean; lastSortKey: string | undefined }> {
  const shards = await Promise.all(
    partitions.map((pk) => queryPartition(pk, query, toResult, limit, oldestFirst)),
  );
  const direction = oldestFirst ? 1 : -1;
  const merged = shards
    .flatMap((shard) => shard.results)
    .sort((a, b) => (a.sortKey < b.sortKey ? -direction : a.sortKey > b.sortKey ? direction : 0));
  const kept = merged.slice(0, limit);
  return {
    results: kept.map((r) => r.result),
    more: merged.length > limit || shards.some((shard) => shard.more),
    lastSortKey: kept.at(-1)?.sortKey,
  };
}

async function queryPartition<T>(
  pk: string,
  query: Gsi1Query,
  toResult: (item: Record<string, unknown>) => T | undefined,
  limit: number,
  oldestFirst: boolean,
): Promise<{ results: { sortKey: string; result: T }[]; more: boolean }> {
  const results: { sortKey: string; result: T }[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        ...query,
        ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ':pk': pk },
        TableName: tableName,
        IndexName: GSI1.name,
        ScanIndexForward: oldestFirst,
        // Never more than still needed, so no page is cut short and `more` is DynamoDB's own answer.
        Limit: limit - results.length,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const result = toResult(item);
      if (result !== undefined) results.push({ sortKey: String(item[GSI1.sortKey] ?? ''), result });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && results.length < limit);
  return { results, more: startKey !== undefined };
}
