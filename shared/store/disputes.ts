import type { DisputeEntry } from '../schemas/dispute.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { tableName } from './client.ts';
import type { HistoryChanges } from './identity-history.ts';
import { keys, type TableKey } from './keys.ts';
import type { StoredOrder } from './orders.ts';
import { ConditionFailedError, type TransactItems, transactWrite } from './transact.ts';
import { StaleRecordError, VERSION_ATTRIBUTE, versionCondition } from './versioned.ts';

/** One dispute event as received (an entry of the request without its id). */
export type DisputeEvent = Omit<DisputeEntry, 'disputeId'>;

/** What a dispute adds to counters in its current state; stored so leaving that state is exact. */
export interface DisputeEffects {
  /** Identities (`kind#digest`) the effects were added to: the order's. */
  identities: string[];
  lost?: { value: number; at: number };
  open?: { at: number };
}

/** A dispute, keyed per merchant by `disputeId`, so an id reused on another order is caught. */
export interface StoredDispute {
  merchantId: string;
  disputeId: string;
  providerOrderId: string;
  serviceOrderId: string;
  currencyCode: string;
  /** The event with the latest timestamp: the dispute's state. */
  current: DisputeEvent;
  /** Every distinct event received, oldest first (bounded). */
  history: DisputeEvent[];
  applied: DisputeEffects;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** The order and the named disputes, plus any `alsoRead` items (by key string), in one BatchGetItem. */
export async function loadOrderDisputes(
  merchantId: string,
  providerOrderId: string,
  disputeIds: readonly string[],
  alsoRead: readonly TableKey[] = [],
): Promise<{
  order: StoredOrder | undefined;
  disputes: Map<string, StoredDispute>;
  items: Map<string, Record<string, unknown>>;
}> {
  const orderKey = keys.order(merchantId, providerOrderId);
  const items = await batchGetItems([
    orderKey,
    ...disputeIds.map((id) => keys.dispute(merchantId, id)),
    ...alsoRead,
  ]);
  const disputes = new Map<string, StoredDispute>();
  for (const id of disputeIds) {
    const item = items.get(keyString(keys.dispute(merchantId, id)));
    if (item) disputes.set(id, item as unknown as StoredDispute);
  }
  return { order: items.get(keyString(orderKey)) as StoredOrder | undefined, disputes, items };
}

export interface DisputeWrite {
  record: StoredDispute;
  /** The version read; undefined for a dispute new to the store. */
  expectedVersion: number | undefined;
}

/** DynamoDB's TransactWriteItems limit. */
export const MAX_TRANSACTION_ITEMS = 100;

/** The change needs more items than one transaction holds; nothing was written. */
export class DisputeBatchTooLargeError extends Error {
  readonly itemCount: number;

  constructor(itemCount: number) {
    super(`A dispute batch needs ${itemCount} writes; one transaction holds ${MAX_TRANSACTION_ITEMS}`);
    this.name = 'DisputeBatchTooLargeError';
    this.itemCount = itemCount;
  }
}

/**
 * Writes the changed disputes, every counter they move and any `alsoWrite` items in one
 * transaction, or nothing: a batch beyond the transaction limit is refused before any write, a lost
 * race is a StaleRecordError.
 */
export async function saveDisputes(
  merchantId: string,
  writes: readonly DisputeWrite[],
  changes: HistoryChanges,
  now: number,
  alsoWrite: TransactItems = [],
): Promise<void> {
  const items: TransactItems = [
    ...writes.map(({ record, expectedVersion }) => ({
      Put: {
        TableName: tableName,
        Item: {
          ...keys.dispute(record.merchantId, record.disputeId),
          entity: 'dispute',
          ...record,
          [VERSION_ATTRIBUTE]: record.version,
        },
        ...versionCondition(expectedVersion),
      },
    })),
    ...changes.toTransactItems(merchantId, new Map(), now),
    ...alsoWrite,
  ];
  if (items.length > MAX_TRANSACTION_ITEMS) throw new DisputeBatchTooLargeError(items.length);
  if (items.length === 0) return;
  try {
    await transactWrite(items);
  } catch (error) {
    if (error instanceof ConditionFailedError && error.index < writes.length) {
      throw new StaleRecordError('dispute');
    }
    throw error;
  }
}
