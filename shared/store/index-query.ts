import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './client.ts';
import { GSI1 } from './table-definition.ts';

/** A GSI1 query without its table, index, direction and paging, which queryGsi1 sets. */
export type Gsi1Query = Omit<
  QueryCommandInput,
  'TableName' | 'IndexName' | 'ScanIndexForward' | 'ExclusiveStartKey' | 'Limit'
>;

/**
 * The one paged GSI1 query: newest first, page after page until `limit` results are taken or the
 * partition ends. `toResult` turns an item into a result or skips it (undefined). `more` says
 * whether the listing went on.
 */
export async function queryGsi1<T>(
  query: Gsi1Query,
  toResult: (item: Record<string, unknown>) => T | undefined,
  limit: number,
): Promise<{ results: T[]; more: boolean }> {
  const results: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        ...query,
        TableName: tableName,
        IndexName: GSI1.name,
        ScanIndexForward: false,
        // Never more than still needed, so no page is cut short and `more` is DynamoDB's own answer.
        Limit: limit - results.length,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const result = toResult(item);
      if (result !== undefined) results.push(result);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && results.length < limit);
  return { results, more: startKey !== undefined };
}
