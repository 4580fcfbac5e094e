import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { forEachConcurrently } from '../../shared/concurrency.ts';
import { newMerchantId } from '../../shared/ids.ts';
import type { Decision } from '../../shared/scoring/decide.ts';
import { documentClient, tableName } from '../../shared/store/client.ts';
import { decidedEventItem } from '../../shared/store/decided-events.ts';
import { keys } from '../../shared/store/keys.ts';

const decision: Decision = {
  decision: 'APPROVE',
  subDecision: 'default_approve',
  decisionType: 'APPROVE/DECLINE',
  reason: 'r',
  abuseScore: 6,
  modelVersion: 'order-1',
  workflowVersion: 'default-order-1',
  signals: {},
};

/**
 * A merchant's (by default a new id's) `count` decided orders a minute apart from `start`, written straight to the table
 * with BatchWriteItem (25 a call, 8 calls at once): volume without the API's pace.
 */
export async function merchantWithOrders(
  count: number,
  start: number,
  merchantId = newMerchantId(),
): Promise<{ merchantId: string; orderIds: string[] }> {
  const orderIds = Array.from({ length: count }, (_, i) => `o-${String(i).padStart(6, '0')}`);
  const batches = Array.from({ length: Math.ceil(count / 25) }, (_, b) =>
    orderIds.slice(b * 25, b * 25 + 25),
  );
  await forEachConcurrently(batches, 8, async (batch) => {
    let requests = batch.map((orderId) => {
      const at = start + Number(orderId.slice(2)) * 60_000;
      const record = { merchantId, createdAt: new Date(at).toISOString(), eventAt: at, decision };
      const item = decidedEventItem(
        { eventType: 'order', key: keys.order(merchantId, orderId), eventId: orderId },
        record,
      );
      return { PutRequest: { Item: item } };
    });
    while (requests.length > 0) {
      const { UnprocessedItems } = await documentClient.send(
        new BatchWriteCommand({ RequestItems: { [tableName]: requests } }),
      );
      requests = (UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  });
  return { merchantId, orderIds };
}
