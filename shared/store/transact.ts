import { type AttributeValue, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { StoreUnavailableError } from '../errors.ts';
import { documentClient } from './client.ts';

export type TransactItems = NonNullable<TransactWriteCommandInput['TransactItems']>;

/** A transaction refused because an item's condition failed; carries that item's stored version. */
export class ConditionFailedError extends Error {
  readonly index: number;
  readonly existingItem: Record<string, unknown> | undefined;

  constructor(index: number, existingItem: Record<string, unknown> | undefined) {
    super(`Condition failed on transaction item ${index}`);
    this.name = 'ConditionFailedError';
    this.index = index;
    this.existingItem = existingItem;
  }
}

const RETRYABLE_REASONS = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
]);
const MAX_ATTEMPTS = 5;

/**
 * Writes all items or none. Conflicts and throttling are retried with jittered backoff; a failed
 * condition becomes a ConditionFailedError (typed, in the store, never in a handler).
 */
export async function transactWrite(items: TransactItems): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await documentClient.send(new TransactWriteCommand({ TransactItems: items }));
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
          throw new ConditionFailedError(failed, item ? unmarshallLoose(item) : undefined);
        }
        if (!reasons.some((r) => r.Code && RETRYABLE_REASONS.has(r.Code))) throw error;
      } else if (!isThrottle(error)) {
        throw error;
      }
      if (attempt >= MAX_ATTEMPTS) {
        throw new StoreUnavailableError('DynamoDB transaction kept conflicting', { cause: error });
      }
      await backoff(attempt);
    }
  }
}

function isThrottle(error: unknown): boolean {
  const name = (error as Error)?.name;
  return (
    name === 'ThrottlingException' ||
    name === 'ProvisionedThroughputExceededException' ||
    name === 'RequestLimitExceeded'
  );
}

/** Full jitter: a random wait up to 25 ms * 2^attempt, so competing requests spread out. */
export function backoff(attempt: number): Promise<void> {
  const ceiling = 25 * 2 ** attempt;
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
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
  return looksMarshalled ? unmarshall(item as Record<string, AttributeValue>) : item;
}
