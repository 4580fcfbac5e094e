import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { StoreUnavailableError } from '../errors.ts';
import { documentClient, tableName } from './client.ts';
import type { TableKey } from './keys.ts';
import { pauseBeforeRetry } from './store-failures.ts';

export const keyString = (key: TableKey) => `${key.PK}|${key.SK}`;

/** Rounds of BatchGetItem for keys DynamoDB left unprocessed (it does so under load). */
const MAX_UNPROCESSED_ROUNDS = 10;

/**
 * Reads many items in one BatchGetItem (strongly consistent), retrying only keys DynamoDB left
 * unprocessed, and a whole read that was throttled or timed out (reads are safe to repeat) within
 * the request's time budget. Returns items by `keyString`.
 */
export async function batchGetItems(
  itemKeys: readonly TableKey[],
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const unique = [...new Map(itemKeys.map((k) => [keyString(k), k])).values()];
  for (let start = 0; start < unique.length; start += 100) {
    let pending: Record<string, unknown>[] = unique.slice(start, start + 100).map((k) => ({ ...k }));
    for (let round = 1; pending.length > 0; round++) {
      const { Responses, UnprocessedKeys } = await sendRetryingUnavailable(pending);
      for (const item of Responses?.[tableName] ?? []) found.set(keyString(item as TableKey), item);
      pending = (UnprocessedKeys?.[tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      if (pending.length > 0) {
        const what = 'BatchGetItem left keys unprocessed after retries';
        await pauseBeforeRetry(round, new StoreUnavailableError(what), what, MAX_UNPROCESSED_ROUNDS);
      }
    }
  }
  return found;
}

async function sendRetryingUnavailable(keys: Record<string, unknown>[]) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await documentClient.send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: keys, ConsistentRead: true } } }),
      );
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      await pauseBeforeRetry(attempt, error, 'DynamoDB reads kept failing');
    }
  }
}
