import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { forEachConcurrently } from '../concurrency.ts';
import { documentClient, tableName } from './client.ts';
import { keys } from './keys.ts';
import type { SliceLimits } from './sliced-search.ts';
import { PARTITION_KEY, SORT_KEY } from './table-definition.ts';

/**
 * Every item of one merchant, for offboarding (shared/use-cases/offboard-merchant.ts): those under
 * its key scope (`M#<merchantId>#`), its profile, and the items that name it as `merchantId` outside
 * that scope (API keys, console sessions). Found by a parallel Scan, DynamoDB's own way of reading a
 * whole table in segments, in time-bounded slices: each segment deletes what it finds as it goes and
 * stops at the slice's deadline with its cursor, from which the next slice goes on. A slice cut off
 * before its cursor is recorded is simply read again: what is gone is not found, nor counted, twice.
 */
const DELETE_CONCURRENCY = 16;

export interface DeletedItems {
  /** Items deleted, by `entity` (or `other` for items without one). */
  byKind: Record<string, number>;
  total: number;
}

/** Where each Scan segment stands: `startKey` to go on from, or done. */
export interface ItemScan {
  segments: { done: boolean; startKey?: Record<string, unknown> }[];
}

export const newItemScan = (segments: number): ItemScan => ({
  segments: Array.from({ length: segments }, () => ({ done: false })),
});

export const itemScanDone = (scan: ItemScan) => scan.segments.every((segment) => segment.done);

/** One slice: each open segment reads at least a page, then pages until the deadline. */
export async function deleteMerchantItemsSlice(
  merchantId: string,
  scan: ItemScan,
  { deadline, pageItems }: SliceLimits,
): Promise<{ scan: ItemScan; deleted: DeletedItems }> {
  const byKind: Record<string, number> = {};
  let total = 0;
  const segments = await Promise.all(
    scan.segments.map(async (state, segment) => {
      if (state.done) return state;
      let startKey = state.startKey;
      do {
        const page = await documentClient.send(
          new ScanCommand({
            TableName: tableName,
            Segment: segment,
            TotalSegments: scan.segments.length,
            FilterExpression: 'begins_with(#pk, :scope) OR #pk = :profile OR #merchant = :merchant',
            ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#merchant': 'merchantId' },
            ExpressionAttributeValues: {
              ':scope': keys.merchantScopePrefix(merchantId),
              ':profile': keys.merchantProfile(merchantId)[PARTITION_KEY],
              ':merchant': merchantId,
            },
            ExclusiveStartKey: startKey,
            Limit: pageItems,
          }),
        );
        await forEachConcurrently(page.Items ?? [], DELETE_CONCURRENCY, async (item) => {
          const { Attributes } = await documentClient.send(
            new DeleteCommand({
              TableName: tableName,
              Key: { [PARTITION_KEY]: item[PARTITION_KEY], [SORT_KEY]: item[SORT_KEY] },
              // Counted only where this delete removed it (another slice may have got there first).
              ReturnValues: 'ALL_OLD',
            }),
          );
          if (!Attributes) return;
          const kind = typeof Attributes.entity === 'string' ? Attributes.entity : 'other';
          byKind[kind] = (byKind[kind] ?? 0) + 1;
          total++;
        });
        startKey = page.LastEvaluatedKey;
      } while (startKey && Date.now() < deadline);
      return startKey ? { done: false, startKey } : { done: true };
    }),
  );
  return { scan: { segments }, deleted: { byKind, total } };
}
