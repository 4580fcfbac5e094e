import { retainUntil } from '../retention.ts';
import type { ItemDisposition } from '../schemas/disposition.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { tableName } from './client.ts';
import { freeTextDelete, freeTextPut, keptAt, liveFreeText } from './free-text.ts';
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

/** A disposition's free text: kept apart from its record, for its own shorter retention. */
export type DispositionText = Pick<ItemDisposition, 'images' | 'inspectionNote'>;

export interface StoredDisposition extends Omit<ItemDisposition, keyof DispositionText> {
  recordedAt: string;
  effects: DispositionEffects;
}

/** The free text of a return's dispositions, by line, each with when it was written. */
export type DispositionTexts = Record<string, DispositionText & { writtenAt: string }>;

/** A disposition as sent, split into what its record keeps and its free text (if any). */
export function splitDispositionText(item: ItemDisposition): {
  fields: Omit<ItemDisposition, keyof DispositionText>;
  text?: DispositionText;
} {
  const { images, inspectionNote, ...fields } = item;
  const text = { ...(images ? { images } : {}), ...(inspectionNote !== undefined ? { inspectionNote } : {}) };
  return Object.keys(text).length > 0 ? { fields, text } : { fields };
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

/**
 * The return, its dispositions and their free text still kept at `now` (by line), plus any
 * `alsoRead` items (by key string), in one BatchGetItem.
 */
export async function loadReturnDispositions(
  merchantId: string,
  providerReturnId: string,
  now: number,
  alsoRead: readonly TableKey[] = [],
): Promise<{
  stored: ReturnRecord | undefined;
  dispositions: StoredDispositions | undefined;
  texts: DispositionTexts;
  items: Map<string, Record<string, unknown>>;
}> {
  const returnKey = keys.return(merchantId, providerReturnId);
  const dispositionsKey = keys.returnDispositions(merchantId, providerReturnId);
  const textKey = keys.freeText(dispositionsKey);
  const items = await batchGetItems([returnKey, dispositionsKey, textKey, ...alsoRead]);
  const byLine = (liveFreeText(items.get(keyString(textKey)), now)?.byLine ?? {}) as DispositionTexts;
  return {
    stored: items.get(keyString(returnKey)) as ReturnRecord | undefined,
    dispositions: items.get(keyString(dispositionsKey)) as StoredDispositions | undefined,
    texts: Object.fromEntries(Object.entries(byLine).filter(([, text]) => keptAt(text.writtenAt, now))),
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
 * Writes a return's dispositions, read at `expectedVersion`, their free text (`texts`, replacing
 * `hadText`), with the counters they move (and any `alsoWrite` items: list entries, the
 * Idempotency-Key record) in one transaction; a concurrent writer that came first (or a concurrent
 * list change) makes it a StaleRecordError.
 */
export async function saveDispositions(
  record: StoredDispositions,
  expectedVersion: number | undefined,
  text: { texts: DispositionTexts; hadText: boolean },
  changes: HistoryChanges,
  now: number,
  alsoWrite: TransactItems = [],
): Promise<void> {
  const dispositionsKey = keys.returnDispositions(record.merchantId, record.providerReturnId);
  const textWrite =
    Object.keys(text.texts).length > 0
      ? [freeTextPut(dispositionsKey, { byLine: text.texts }, now)]
      : text.hadText
        ? [freeTextDelete(dispositionsKey)]
        : [];
  try {
    await transactWrite([
      {
        Put: {
          TableName: tableName,
          Item: {
            ...dispositionsKey,
            entity: 'returnDispositions',
            ...record,
            [VERSION_ATTRIBUTE]: record.version,
            [TTL_ATTRIBUTE]: retainUntil('events', now),
          },
          ...versionCondition(expectedVersion),
        },
      },
      ...textWrite,
      ...changes.toTransactItems(record.merchantId, new Map(), now),
      ...alsoWrite,
    ]);
  } catch (error) {
    if ((error instanceof ConditionFailedError && error.index === 0) || isListConflict(error))
      throw new StaleRecordError('dispositions');
    throw error;
  }
}
