import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './client.ts';
import type { TableKey } from './keys.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';
import { type TransactItem, transactWrite } from './transact.ts';

/**
 * The answer given under an Idempotency-Key (docs/decisions.md: 24 h window), one item per merchant,
 * endpoint and key (keys.idempotencyKey). It is read in the request's first read and written in
 * the request's one transaction, so it exists exactly when the request's effects do.
 */
export interface IdempotencyRecord {
  endpoint: string;
  /** SHA-256 of the canonical request (body and path): the same key with another request is a 409. */
  requestHash: string;
  /** The response exactly as first sent, so a replay is byte-for-byte the same. */
  responseJson: string;
  createdAt: string;
  /** Epoch seconds; also the table's TTL attribute. */
  [TTL_ATTRIBUTE]: number;
}

const IDEMPOTENCY_WINDOW_SECONDS = 24 * 3_600;

/**
 * The record if it is still within its window. DynamoDB's TTL deletes expired items lazily (often
 * hours later), so an expired record still present counts as absent.
 */
export function liveIdempotencyRecord(
  item: Record<string, unknown> | undefined,
  now: number,
): IdempotencyRecord | undefined {
  if (!item) return undefined;
  const expiresAt = item[TTL_ATTRIBUTE];
  if (typeof expiresAt !== 'number' || expiresAt <= Math.floor(now / 1000)) return undefined;
  if (typeof item.requestHash !== 'string' || typeof item.responseJson !== 'string') return undefined;
  return item as unknown as IdempotencyRecord;
}

/**
 * The Put for the request's transaction: it succeeds only while no live record holds the key, so
 * of two concurrent requests with one key exactly one records; the loser's whole transaction is
 * cancelled and carries the winner's record (ALL_OLD).
 */
export function idempotencyRecordPut(
  key: TableKey,
  record: Omit<IdempotencyRecord, typeof TTL_ATTRIBUTE>,
  now: number,
): TransactItem {
  const nowSeconds = Math.floor(now / 1000);
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...key,
        entity: 'idempotencyRecord',
        ...record,
        [TTL_ATTRIBUTE]: nowSeconds + IDEMPOTENCY_WINDOW_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(PK) OR #expiresAt <= :now',
      ExpressionAttributeNames: { '#expiresAt': TTL_ATTRIBUTE },
      ExpressionAttributeValues: { ':now': nowSeconds },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** Records an answer on its own, for a request that otherwise had nothing to write. */
export async function saveIdempotencyRecord(put: TransactItem): Promise<void> {
  await transactWrite([put]);
}

export async function getIdempotencyRecord(key: TableKey): Promise<Record<string, unknown> | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
  );
  return Item;
}
