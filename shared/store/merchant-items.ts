import { DeleteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { forEachConcurrently } from '../concurrency.ts';
import { documentClient, tableName } from './client.ts';
import { keys } from './keys.ts';
import { PARTITION_KEY, SORT_KEY } from './table-definition.ts';

/**
 * Every item of one merchant, for offboarding (shared/use-cases/offboard-merchant.ts): those under
 * its key scope (`M#<merchantId>#`), its profile, and the items that name it as `merchantId` outside
 * that scope (API keys, console sessions). Found by a parallel Scan, DynamoDB's own way of reading a
 * whole table in segments; each segment deletes what it finds as it goes, so a run cut off is
 * resumed by running again (what is gone is not found twice).
 */
const DELETE_CONCURRENCY = 16;

export interface DeletedItems {
  /** Items deleted, by `entity` (or `other` for items without one). */
  byKind: Record<string, number>;
  total: number;
}

export async function deleteMerchantItems(merchantId: string, segments: number): Promise<DeletedItems> {
  const byKind: Record<string, number> = {};
  let total = 0;
  await Promise.all(
    Array.from({ length: segments }, async (_, segment) => {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await documentClient.send(
          new ScanCommand({
            TableName: tableName,
            Segment: segment,
            TotalSegments: segments,
            FilterExpression: 'begins_with(#pk, :scope) OR #pk = :profile OR #merchant = :merchant',
            ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#merchant': 'merchantId' },
            ExpressionAttributeValues: {
              ':scope': keys.merchantScopePrefix(merchantId),
              ':profile': keys.merchantProfile(merchantId)[PARTITION_KEY],
              ':merchant': merchantId,
            },
            ExclusiveStartKey: startKey,
          }),
        );
        await forEachConcurrently(page.Items ?? [], DELETE_CONCURRENCY, async (item) => {
          await documentClient.send(
            new DeleteCommand({
              TableName: tableName,
              Key: { [PARTITION_KEY]: item[PARTITION_KEY], [SORT_KEY]: item[SORT_KEY] },
            }),
          );
          const kind = typeof item.entity === 'string' ? item.entity : 'other';
          byKind[kind] = (byKind[kind] ?? 0) + 1;
          total++;
        });
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }),
  );
  return { byKind, total };
}
