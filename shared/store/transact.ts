import { randomUUID } from 'node:crypto';
import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StoreUnavailableError } from '../errors.ts';
import { documentClient, UNMARSHALL_OPTIONS } from './client.ts';
import type { TableKey } from './keys.ts';
import { outcomeUnknown, pauseBeforeRetry } from './store-failures.ts';

export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;
export type TransactItem = TransactItems[number];

/** DynamoDB's TransactWriteItems limit: actions in one transaction. */
export const MAX_TRANSACTION_ITEMS = 100;

/** A transaction refused because an item's condition failed; carries that item's stored version. */
export class ConditionFailedError extends Error {
  readonly index: number;
  readonly existingItem: Record<string, unknown> | undefined;
  /** The key of the item whose condition failed, so callers need not track positions. */
  readonly key: TableKey | undefined;

  constructor(index: number, existingItem: Record<string, unknown> | undefined, key?: TableKey) {
    super(`Condition failed on transaction item ${index}`);
    this.name = 'ConditionFailedError';
    this.index = index;
    this.existingItem = existingItem;
    this.key = key;
  }
}

const RETRYABLE_REASONS = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
]);

/**
 * Writes all items or none. Conflicts, throttling and timeouts are retried with jittered backoff
 * within the request's time budget, then become StoreUnavailableError (503); a failed condition
 * becomes a ConditionFailedError (typed, in the store, never in a handler).
 *
 * Every attempt after a timeout re-sends the same ClientRequestToken: if the lost attempt did
 * commit, DynamoDB answers the retry with success and applies nothing twice. After a cancellation
 * or a throttle nothing was applied, so the next attempt is a new transaction with a new token.
 */
export async function transactWrite(items: TransactItems): Promise<void> {
  let token = randomUUID();
  for (let attempt = 1; ; attempt++) {
    try {
      await documentClient.send(
        new TransactWriteCommand({ TransactItems: items, ClientRequestToken: token }),
      );
      return;
    } catch (error) {
      if (
        error instanceof TransactionCanceledException ||
        (error as Error).name === 'TransactionCanceledException'
      ) {
        const reasons = (error as TransactionCanceledException).CancellationReasons ?? [];
        const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
        if (failed >= 0) {
          const item = reasons[failed]?.Item as Record<string, unknown> | undefined;
          throw new ConditionFailedError(
            failed,
            item ? unmarshallLoose(item) : undefined,
            keyOf(items[failed]),
          );
        }
        if (!reasons.some((r) => r.Code && RETRYABLE_REASONS.has(r.Code))) throw error;
        token = randomUUID();
      } else if (error instanceof StoreUnavailableError) {
        if (!outcomeUnknown(error)) token = randomUUID();
      } else if ((error as Error).name !== 'TransactionInProgressException') {
        // TransactionInProgress: the same token is still being applied; asking again is safe.
        throw error;
      }
      await pauseBeforeRetry(attempt, error, 'DynamoDB transaction kept conflicting');
    }
  }
}

/**
 * Writes all items or none, answering false instead of throwing when the first item's condition
 * fails: the change is refused because the thing it changes is missing or no longer in that state.
 */
export async function transactWriteIfFirstHolds(items: TransactItems): Promise<boolean> {
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    if (error instanceof ConditionFailedError && error.index === 0) return false;
    throw error;
  }
}

/** The key an action of a transaction addresses. */
function keyOf(item: TransactItem | undefined): TableKey | undefined {
  const target = item?.Put?.Item ?? item?.Update?.Key ?? item?.Delete?.Key ?? item?.ConditionCheck?.Key;
  if (!target || typeof target.PK !== 'string' || typeof target.SK !== 'string') return undefined;
  return { PK: target.PK, SK: target.SK };
}

/** Cancellation reasons carry items in wire format even through the document client. */
function unmarshallLoose(item: Record<string, unknown>): Record<string, unknown> {
  const first = Object.values(item)[0];
  const looksMarshalled =
    first !== null &&
    typeof first === 'object' &&
    !Array.isArray(first) &&
    Object.keys(first).length === 1 &&
    /^(S|N|B|SS|NS|BS|M|L|NULL|BOOL)$/.test(Object.keys(first)[0] ?? '');
  return looksMarshalled ? unmarshall(item as Record<string, AttributeValue>, UNMARSHALL_OPTIONS) : item;
}
