import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Decision } from '../scoring/decide.ts';
import { documentClient, tableName } from './client.ts';
import { type DecidedEventRecord, decidedEventPut, decisionsOfItem } from './decided-events.ts';
import type { HistoryChanges } from './identity-history.ts';
import { keys } from './keys.ts';
import { getRecord, type RecordOutcome, recordOnce } from './record-once.ts';
import { eventWebhookItems } from './webhook-notices.ts';

/**
 * A recorded order: what later returns and disputes need, and what its response is rebuilt from
 * for replays (ids and decision; the response itself is not stored: 400 bytes less per order).
 */
export interface StoredOrder extends DecidedEventRecord {
  providerOrderId: string;
  serviceOrderId: string;
  requestHash: string;
  /** Hash of the request without `state` and `timestamp`: equal means a status-only update. */
  stableHash: string;
  state: string;
  timestamp: number;
  currencyCode: string;
  orderValue: number;
  /** Every identity of the order as `kind#digest`; feedback (disputes, dispositions) lands on these. */
  identities: string[];
  /** Its lines, packed (storedOrderLine); read them with orderLines. */
  lineItems: StoredOrderLine[];
  decision: Decision;
  /** The cart id the request named, if any (the response's serviceCartID derives from serviceOrderId). */
  providerCartId?: string;
}

/** A line of a recorded order, as returns match and value their items against it. */
export interface OrderLine {
  identifiers: { identifierType: string; identifier: string }[];
  quantity: number;
  unitPrice: number;
  category: string;
}

/**
 * A line as the record keeps it, `[quantity, unitPrice, category, type, identifier, type,
 * identifier, ...]`: attribute names are paid on every write, and these were 60 of a line's 110 bytes.
 */
export type StoredOrderLine = (string | number)[];

export const storedOrderLine = (line: OrderLine): StoredOrderLine => [
  line.quantity,
  line.unitPrice,
  line.category,
  ...line.identifiers.flatMap((id) => [id.identifierType, id.identifier]),
];

export function orderLines(order: Pick<StoredOrder, 'lineItems'>): OrderLine[] {
  return order.lineItems.map(([quantity, unitPrice, category, ...ids]) => {
    const identifiers: OrderLine['identifiers'] = [];
    for (let i = 0; i + 1 < ids.length; i += 2)
      identifiers.push({ identifierType: String(ids[i]), identifier: String(ids[i + 1]) });
    return {
      quantity: Number(quantity),
      unitPrice: Number(unitPrice),
      category: String(category),
      identifiers,
    };
  });
}

/**
 * Writes the order, every counter it moves and its webhook outbox item in one transaction. If the order id was taken
 * meanwhile (a concurrent duplicate), nothing is written and the winner's record is returned.
 */
export async function recordOrder(
  order: StoredOrder,
  responseJson: string,
  changes: HistoryChanges,
  storedItems: Map<string, Record<string, unknown>>,
  now: number,
): Promise<RecordOutcome<StoredOrder>> {
  const key = keys.order(order.merchantId, order.providerOrderId);
  return recordOnce<StoredOrder>(
    [
      decidedEventPut({ eventType: 'order', key, eventId: order.providerOrderId }, order),
      ...changes.toTransactItems(order.merchantId, storedItems, now),
      ...eventWebhookItems(
        { ...order, responseJson, eventType: 'order', eventKey: key, decisions: order.decision },
        storedItems,
        now,
      ),
    ],
    key,
  );
}

/** A recorded order, its decision whole (fields unpacked: decided-events.ts). */
export async function getOrder(
  merchantId: string,
  providerOrderId: string,
): Promise<StoredOrder | undefined> {
  const order = await getRecord<StoredOrder>(keys.order(merchantId, providerOrderId));
  if (!order) return undefined;
  const [decision] = decisionsOfItem(order as unknown as Record<string, unknown>);
  return decision ? { ...order, decision } : order;
}

/** Records a status-only update (newest timestamp wins); the decision is unchanged. */
export async function updateOrderState(
  merchantId: string,
  providerOrderId: string,
  state: string,
  timestamp: number,
) {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.order(merchantId, providerOrderId),
        UpdateExpression: 'SET #state = :state, #ts = :ts',
        ConditionExpression: 'attribute_exists(PK) AND #ts <= :ts',
        ExpressionAttributeNames: { '#state': 'state', '#ts': 'timestamp' },
        ExpressionAttributeValues: { ':state': state, ':ts': timestamp },
      }),
    );
  } catch (error) {
    // An older status update arriving late changes nothing.
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}
