import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './client.ts';
import type { TableKey } from './keys.ts';

export const keyString = (key: TableKey) => `${key.PK}|${key.SK}`;

/**
 * Reads many items in one BatchGetItem (strongly consistent), retrying only keys DynamoDB left
 * unprocessed. Returns items by `keyString`.
 */
export async function batchGetItems(
  itemKeys: readonly TableKey[],
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const unique = [...new Map(itemKeys.map((k) => [keyString(k), k])).values()];
  for (let start = 0; start < unique.length; start += 100) {
    let pending: Record<string, unknown>[] = unique.slice(start, start + 100).map((k) => ({ ...k }));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(20 * 2 ** attempt, 500)));
      const { Responses, UnprocessedKeys } = await documentClient.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      for (const item of Responses?.[tableName] ?? []) found.set(keyString(item as TableKey), item);
      pending = (UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      if (attempt > 8 && pending.length > 0)
        throw new Error('BatchGetItem left keys unprocessed after retries');
    }
  }
  return found;
}
