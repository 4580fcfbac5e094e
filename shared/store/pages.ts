import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { ApiError } from '../errors.ts';
import { documentClient, tableName } from './client.ts';
import { PARTITION_KEY } from './table-definition.ts';

/**
 * One page of a Query with an opaque cursor: the cursor is DynamoDB's LastEvaluatedKey, base64url
 * JSON. A cursor whose partition is not the one queried (edited, or from another list) is 400, so a
 * cursor can never lead into another merchant's records.
 */
export interface PageQuery {
  query: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit' | 'ScanIndexForward'>;
  /** The attribute and value every key of this listing has (its partition). */
  partition: { attribute: string; value: string };
  oldestFirst: boolean;
  cursor: string | undefined;
  limit: number;
}

/** A listing that is one whole table partition (the audit log, a merchant's privacy requests). */
export const wholePartition = (partition: string): Pick<PageQuery, 'query' | 'partition'> => ({
  query: {
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': PARTITION_KEY },
    ExpressionAttributeValues: { ':pk': partition },
  },
  partition: { attribute: PARTITION_KEY, value: partition },
});

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

export async function queryPage<T>(
  { query, partition, oldestFirst, cursor, limit }: PageQuery,
  toItem: (item: Record<string, unknown>) => T | undefined,
): Promise<Page<T>> {
  const items: T[] = [];
  let startKey = cursor === undefined ? undefined : decodeCursor(cursor, partition);
  do {
    const page = await documentClient.send(
      new QueryCommand({
        ...query,
        TableName: tableName,
        ScanIndexForward: oldestFirst,
        Limit: limit - items.length,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const result = toItem(item);
      if (result !== undefined) items.push(result);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < limit);
  return startKey ? { items, nextCursor: encodeCursor(startKey) } : { items };
}

/**
 * The cursor of a listing spread over shards (keys.ts: the review queue): the last sort key given,
 * base64url JSON. It names no partition, so it cannot lead outside the listing's own shards.
 */
export const encodeSortKeyCursor = (sortKey: string) =>
  Buffer.from(JSON.stringify({ after: sortKey })).toString('base64url');

export function decodeSortKeyCursor(cursor: string): string {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      parsed !== null &&
      typeof parsed === 'object' &&
      typeof (parsed as { after?: unknown }).after === 'string'
    ) {
      return (parsed as { after: string }).after;
    }
  } catch {
    // Falls through to the answer below.
  }
  throw new ApiError('invalid_request', 'The cursor is not one this list gave.', { field: 'cursor' });
}

const encodeCursor = (key: Record<string, unknown>) => Buffer.from(JSON.stringify(key)).toString('base64url');

function decodeCursor(cursor: string, partition: PageQuery['partition']): Record<string, unknown> {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (
      key !== null &&
      typeof key === 'object' &&
      (key as Record<string, unknown>)[partition.attribute] === partition.value &&
      Object.values(key).every((v) => typeof v === 'string')
    ) {
      return key as Record<string, unknown>;
    }
  } catch {
    // Falls through to the answer below.
  }
  throw new ApiError('invalid_request', 'The cursor is not one this list gave.', { field: 'cursor' });
}
