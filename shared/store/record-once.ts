import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './client.ts';
import type { TableKey } from './keys.ts';
import { ConditionFailedError, type TransactItems, transactWrite } from './transact.ts';

/** What writing an idempotent event gave: recorded now, or already recorded (the winner's record). */
export type RecordOutcome<T> = { recorded: true } | { recorded: false; existing: T };

/**
 * Runs a transaction whose first item is the event's Put conditional on its key being new. If a
 * concurrent duplicate took the key, nothing is written and the stored record is handed back (from
 * the cancellation reason, else by a consistent read), so the caller can replay or refuse it.
 */
export async function recordOnce<T>(items: TransactItems, key: TableKey): Promise<RecordOutcome<T>> {
  try {
    await transactWrite(items);
    return { recorded: true };
  } catch (error) {
    if (error instanceof ConditionFailedError && error.index === 0) {
      const existing = (error.existingItem as T | undefined) ?? (await getRecord<T>(key));
      if (existing) return { recorded: false, existing };
    }
    throw error;
  }
}

/** A strongly consistent read of one record. */
export async function getRecord<T>(key: TableKey): Promise<T | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  return Item as T | undefined;
}
