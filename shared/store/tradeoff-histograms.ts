import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../contract/endpoints.ts';
import type { TradeoffHistogram } from '../learning/tradeoffs.ts';
import { retainUntil } from '../retention.ts';
import { documentClient, tableName } from './client.ts';
import { learningKeys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';

/**
 * A merchant's trade-off histogram per event type: one item beside its model versions, replaced by
 * each nightly item (or `models train`), read by the trade-off report and the guard. Never read on
 * the decision path. Stored gzipped: 101 scores x 2 labels x up to about 110 value bands (values up
 * to a million) is 22,000 cells, over DynamoDB's 400 KB as JSON (450 KB) and about 130 KB gzipped (test/store/tradeoff-histograms.test.ts).
 */
export async function saveTradeoffHistogram(
  merchantId: string,
  eventType: EventType,
  histogram: TradeoffHistogram,
): Promise<void> {
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...learningKeys.tradeoffHistogram(merchantId, eventType),
        entity: 'tradeoffHistogram',
        histogram: gzipSync(JSON.stringify(histogram)),
        // Counts of the window's events: kept no longer than they, unless a nightly item replaces it.
        [TTL_ATTRIBUTE]: retainUntil('events', Date.now()),
      },
    }),
  );
}

export async function getTradeoffHistogram(
  merchantId: string,
  eventType: EventType,
): Promise<TradeoffHistogram | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: learningKeys.tradeoffHistogram(merchantId, eventType) }),
  );
  const stored = Item?.histogram as Uint8Array | undefined;
  return stored ? (JSON.parse(gunzipSync(stored).toString('utf8')) as TradeoffHistogram) : undefined;
}
