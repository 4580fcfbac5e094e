import { retainUntil } from '../retention.ts';
import type { ItemDisposition } from '../schemas/disposition.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { tableName } from './client.ts';
import type { HistoryChanges } from './identity-history.ts';
import { keys, type TableKey } from './keys.ts';
import { isListConflict } from './list-entries.ts';
import type { ReturnRecord } from './returns.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';
import { ConditionFailedError, type TransactItem, type TransactItems, transactWrite } from './transact.ts';
import { StaleRecordError, VERSION_ATTRIBUTE, versionCondition } from './versioned.ts';

/**
 * What one item's disposition adds to counters, stored so a replacement moves only the difference:
 * each present field is a +1 on every identity of the return, at that event time.
 */
export interface DispositionEffects {
  abusiveAt?: number;
  heavilyUsedAt?: number;
}

export interface StoredDisposition extends ItemDisposition {
  recordedAt: string;
  effects: DispositionEffects;
}

/** All dispositions of one return, by index of the returned line item; one item, versioned. */
export interface StoredDispositions {
  merchantId: string;
  providerReturnId: string;
  byLine: Record<string, StoredDisposition>;
  /** List entries its abusive items put on the lists: id and identity. */
  listed?: { entryId: string; identity: string }[];
  version: number;
  updatedAt: string;
}

/** DynamoDB's item limit is 400 KB; stay clearly below it, leaving room for attribute names. */
export const MAX_DISPOSITIONS_BYTES = 350_000;

/** The return and its dispositions, plus any `alsoRead` items (by key string), in one BatchGetItem. */
export async function loadReturnDispositions(
  merchantId: string,
  providerReturnId: string,
  alsoRead: readonly TableKey[] = [],
): Promise<{
  stored: ReturnRecord | undefined;
  dispositions: StoredDispositions | undefined;
  items: Map<string, Record<string, unknown>>;
}> {
  const returnKey = keys.return(merchantId, providerReturnId);
  const dispositionsKey = keys.returnDispositions(merchantId, providerReturnId);
  const items = await batchGetItems([returnKey, dispositionsKey, ...alsoRead]);
  return {
    stored: items.get(keyString(returnKey)) as ReturnRecord | undefined,
    dispositions: items.get(keyString(dispositionsKey)) as StoredDispositions | undefined,
    items,
  };
}

/**
 * The Update that records which list entries a return's dispositions hold now (a legitimate review
 * of the return took them off), for another use case's transaction: conditional on the version
 * read, so a concurrent disposition makes that transaction fail (see isDispositionsConflict).
 */
export function dispositionsListedUpdate(
  record: StoredDispositions,
  listed: NonNullable<StoredDispositions['listed']>,
): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: keys.returnDispositions(record.merchantId, record.providerReturnId),
      UpdateExpression:
        listed.length > 0 ? 'SET #listed = :listed, #version = :next' : 'REMOVE #listed SET #version = :next',
      ConditionExpression: '#version = :read',
      ExpressionAttributeNames: { '#listed': 'listed', '#version': VERSION_ATTRIBUTE },
      ExpressionAttributeValues: {
        ...(listed.length > 0 ? { ':listed': listed } : {}),
        ':next': record.version + 1,
        ':read': record.version,
      },
    },
  };
}

const DISPOSITIONS_SORT_KEY = keys.returnDispositions('', '').SK;

/** The dispositions record changed under a transaction that held dispositionsListedUpdate. */
export const isDispositionsConflict = (error: unknown): boolean =>
  error instanceof ConditionFailedError && error.key?.SK === DISPOSITIONS_SORT_KEY;

/**
 * Writes a return's dispositions, read at `expectedVersion`, with the counters they move (and any
 * `alsoWrite` items: list entries, the Idempotency-Key record) in one transaction; a concurrent
 * writer that came first (or a concurrent list change) makes it a StaleRecordError.
 */
export async function saveDispositions(
  record: StoredDispositions,
  expectedVersion: number | undefined,
  changes: HistoryChanges,
  now: number,
  alsoWrite: TransactItems = [],
): Promise<void> {
  try {
    await transactWrite([
      {
        Put: {
          TableName: tableName,
          Item: {
            ...keys.returnDispositions(record.merchantId, record.providerReturnId),
            entity: 'returnDispositions',
            ...record,
            [VERSION_ATTRIBUTE]: record.version,
            [TTL_ATTRIBUTE]: retainUntil('events', now),
          },
          ...versionCondition(expectedVersion),
        },
      },
      ...changes.toTransactItems(record.merchantId, new Map(), now),
      ...alsoWrite,
    ]);
  } catch (error) {
    if ((error instanceof ConditionFailedError && error.index === 0) || isListConflict(error))
      throw new StaleRecordError('dispositions');
    throw error;
  }
}
