import { retainUntil } from '../retention.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { tableName } from './client.ts';
import { keys, type TableKey } from './keys.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';
import type { TransactItem } from './transact.ts';

/**
 * Free text people and merchants wrote (review notes, ...) lives in an item of its own beside its
 * record, whose TTL is the shorter `freeText` retention: written in the record's own transaction,
 * read by key where it is shown, and shown as absent once expired while the record lives on.
 */
export type FreeText = Readonly<Record<string, string>>;

export function freeTextPut(recordKey: TableKey, text: FreeText, now: number): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...keys.freeText(recordKey),
        entity: 'freeText',
        text,
        [TTL_ATTRIBUTE]: retainUntil('freeText', now),
      },
    },
  };
}

/**
 * The live free text of each record that has some, by the record's `keyString`. DynamoDB's TTL
 * deletes an expired item only within days, so an item past its expiry counts as gone already.
 */
export async function readFreeText(
  recordKeys: readonly TableKey[],
  now = Date.now(),
): Promise<Map<string, FreeText>> {
  if (recordKeys.length === 0) return new Map();
  const items = await batchGetItems(recordKeys.map(keys.freeText));
  const live = new Map<string, FreeText>();
  for (const recordKey of recordKeys) {
    const item = items.get(keyString(keys.freeText(recordKey)));
    if (item && Number(item[TTL_ATTRIBUTE]) * 1000 > now)
      live.set(keyString(recordKey), item.text as FreeText);
  }
  return live;
}
