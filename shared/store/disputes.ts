import { retainUntil } from '../retention.ts';
import type { DisputeEntry } from '../schemas/dispute.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { tableName } from './client.ts';
import { HistoryChanges } from './identity-history.ts';
import { keys, learningGsi1, type TableKey } from './keys.ts';
import { isListConflict } from './list-entries.ts';
import type { OrderItem } from './orders.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';
import {
  ConditionFailedError,
  MAX_TRANSACTION_ITEMS,
  type TransactItems,
  transactWrite,
} from './transact.ts';
import { StaleRecordError, VERSION_ATTRIBUTE, versionCondition } from './versioned.ts';

/** One dispute event as received (an entry of the request without its id). */
export type DisputeEvent = Omit<DisputeEntry, 'disputeId'>;

/** What a dispute adds to counters in its current state; stored so leaving that state is exact. */
export interface DisputeEffects {
  /** Identities (`kind#digest`) the effects were added to: the order's. */
  identities: string[];
  /** `service`: lost for a reason that is not fraud (shared/lists/feedback-rules.ts isFraudReason). */
  lost?: { value: number; at: number; service?: true };
  open?: { at: number };
  /** List entries its state put on the lists (a lost fraud chargeback's): id and identity. */
  listed?: { entryId: string; identity: string }[];
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
  order: OrderItem | undefined;
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
  return { order: items.get(keyString(orderKey)) as OrderItem | undefined, disputes, items };
}

export interface DisputeWrite {
  record: StoredDispute;
  /** The version read; undefined for a dispute new to the store. */
  expectedVersion: number | undefined;
  /** The counter moves of this dispute's state change, and its list markers. */
  changes: HistoryChanges;
  /** Its list entries' writes and their audit entries. */
  listItems?: TransactItems;
}

/**
 * Writes the changed disputes with every counter they move, and any `alsoWrite` items (the
 * Idempotency-Key record) last. Each dispute is written in the same transaction as its own counter
 * moves, so no dispute is ever half-recorded. A batch needing more than one transaction (e.g. 100
 * new disputes on one order) is split into transactions of whole disputes; if one fails, the
 * caller's retry re-reads and finds the written disputes unchanged, so only the rest is written.
 * A lost race is a StaleRecordError.
 */
export async function saveDisputes(
  merchantId: string,
  writes: readonly DisputeWrite[],
  now: number,
  alsoWrite: TransactItems = [],
): Promise<void> {
  const chunks = chunkWrites(writes, MAX_TRANSACTION_ITEMS - alsoWrite.length);
  for (const [index, chunk] of chunks.entries()) {
    const changes = new HistoryChanges();
    for (const write of chunk) changes.absorb(write.changes);
    const items: TransactItems = [
      ...chunk.map(({ record, expectedVersion }) => ({
        Put: {
          TableName: tableName,
          Item: {
            ...keys.dispute(record.merchantId, record.disputeId),
            ...learningGsi1.disputesByMerchant(record.merchantId, record.createdAt, record.disputeId),
            entity: 'dispute',
            ...record,
            [VERSION_ATTRIBUTE]: record.version,
            // Chargebacks come long after the order: kept from the dispute's latest change.
            [TTL_ATTRIBUTE]: retainUntil('disputes', now),
          },
          ...versionCondition(expectedVersion),
        },
      })),
      ...changes.toTransactItems(merchantId, new Map(), now),
      ...chunk.flatMap((write) => write.listItems ?? []),
      ...(index === chunks.length - 1 ? alsoWrite : []),
    ];
    if (items.length === 0) continue;
    try {
      await transactWrite(items);
    } catch (error) {
      if ((error instanceof ConditionFailedError && error.index < chunk.length) || isListConflict(error)) {
        throw new StaleRecordError('dispute');
      }
      throw error;
    }
  }
}

/** Greedy split into transactions of whole disputes, each within `capacity` items. */
function chunkWrites(writes: readonly DisputeWrite[], capacity: number): DisputeWrite[][] {
  const chunks: DisputeWrite[][] = [[]];
  let merged = new HistoryChanges();
  for (const write of writes) {
    const candidate = new HistoryChanges().absorb(merged).absorb(write.changes);
    const current = chunks[chunks.length - 1]!;
    const listItems = [...current, write].reduce((n, w) => n + (w.listItems?.length ?? 0), 0);
    if (current.length > 0 && current.length + 1 + candidate.identityCount + listItems > capacity) {
      chunks.push([write]);
      merged = new HistoryChanges().absorb(write.changes);
    } else {
      current.push(write);
      merged = candidate;
    }
  }
  return chunks;
}
