import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Decision } from '../scoring/decide.ts';
import { documentClient, tableName } from './client.ts';
import { type DecidedEventRecord, decisionsOfItem, type StoredDecision } from './decided-events.ts';
import { keys } from './keys.ts';
import { getRecord } from './record-once.ts';

/**
 * An order as recorded: what later returns and disputes need, and what its response is rebuilt
 * from for replays (ids and decision; the response itself is not stored: 400 bytes less per order).
 */
export interface OrderRecord extends DecidedEventRecord {
  providerOrderId: string;
  serviceOrderId: string;
  /** Hashes of the request, whole and without `state` and `timestamp` (natural-key-repeats.ts). */
  requestHash: string;
  stableHash?: string;
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

/**
 * An order item as the table holds it, read raw in a request's BatchGetItem: its decision's fields
 * are packed (decided-events.ts). A return or dispute reads only the order's ids, identities, lines
 * and time; getOrder unpacks the decision.
 */
export type OrderItem = Omit<OrderRecord, 'decision'> & { decision: StoredDecision };

export function orderLines(order: Pick<OrderRecord, 'lineItems'>): OrderLine[] {
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

/** A recorded order, its decision whole (fields unpacked: decided-events.ts). */
export async function getOrder(
  merchantId: string,
  providerOrderId: string,
): Promise<OrderRecord | undefined> {
  const item = await getRecord<Record<string, unknown>>(keys.order(merchantId, providerOrderId));
  const [decision] = item ? decisionsOfItem(item) : [];
  return item && decision ? ({ ...item, decision } as unknown as OrderRecord) : undefined;
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
