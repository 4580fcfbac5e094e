import { retainUntil } from '../retention.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { tableName } from './client.ts';
import { keys, type TableKey } from './keys.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';
import type { TransactItem } from './transact.ts';

/**
 * Free text people and merchants wrote (review notes, inspection notes and image links) lives in an
 * item of its own beside its record, whose TTL is the shorter `freeText` retention: written in the
 * record's own transaction, read by key where it is shown, and shown as absent once expired while
 * the record lives on.
 */
export type FreeText = Readonly<Record<string, unknown>>;

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

export const freeTextDelete = (recordKey: TableKey): TransactItem => ({
  Delete: { TableName: tableName, Key: keys.freeText(recordKey) },
});

/**
 * The text of a free-text item as read, unless it is past its expiry: DynamoDB's TTL deletes an
 * expired item only within days, so until then it counts as gone already.
 */
export function liveFreeText(item: Record<string, unknown> | undefined, now: number): FreeText | undefined {
  return item && Number(item[TTL_ATTRIBUTE]) * 1000 > now ? (item.text as FreeText) : undefined;
}

/** Whether text written at `writtenAt` (ISO) is still kept at `now`. */
export const keptAt = (writtenAt: string, now: number): boolean =>
  retainUntil('freeText', Date.parse(writtenAt)) * 1000 > now;

/** The live free text of each record that has some, by the record's `keyString`. */
export async function readFreeText(
  recordKeys: readonly TableKey[],
  now = Date.now(),
): Promise<Map<string, FreeText>> {
  if (recordKeys.length === 0) return new Map();
  const items = await batchGetItems(recordKeys.map(keys.freeText));
  const live = new Map<string, FreeText>();
  for (const recordKey of recordKeys) {
    const text = liveFreeText(items.get(keyString(keys.freeText(recordKey))), now);
    if (text) live.set(keyString(recordKey), text);
  }
  return live;
}
