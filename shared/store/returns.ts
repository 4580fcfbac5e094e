import type { Decision } from '../scoring/decide.ts';
import { tableName } from './client.ts';
import { type DecidedEventRecord, decidedEventItem, decidedEventPut } from './decided-events.ts';
import type { HistoryChanges } from './identity-history.ts';
import { keys } from './keys.ts';
import { getRecord, type RecordOutcome, recordOnce } from './record-once.ts';
import { reviewItemsFor } from './reviews.ts';
import { ConditionFailedError, type TransactItems, transactWrite } from './transact.ts';
import { StaleRecordError, VERSION_ATTRIBUTE, versionCondition } from './versioned.ts';
import { eventWebhookItems } from './webhook-notices.ts';

/** What a return adds to counters while it is not cancelled; stored so removal is exact. */
export interface ReturnEffects {
  /** Event time the counters were moved at: removal hits the same time buckets. */
  at: number;
  value: number;
  /** Identities (`kind#digest`) whose returns and returned value were raised. */
  identities: string[];
  /** Units added per line of the original order, by line index. */
  units: Record<string, number>;
}

export interface StoredReturnItem {
  identifiers: { identifierType: string; identifier: string }[];
  /** Index of the matched line of the original order. */
  orderLine: number;
  quantity: number;
  value: number;
  category: string;
  reason: string;
}

export interface ReturnStatusEntry {
  status: string;
  timestamp: number;
  recordedAt: string;
}

/** A recorded return: its decisions, what it counted, and what dispositions need. */
export interface StoredReturn extends DecidedEventRecord {
  providerReturnId: string;
  serviceReturnId: string;
  providerOrderId: string;
  serviceOrderId: string;
  requestHash: string;
  /** Hash of the request without `status` and `timestamp`: equal means a status-only update. */
  stableHash: string;
  /** Current status: the one with the latest timestamp. */
  status: string;
  statusTimestamp: number;
  statusHistory: ReturnStatusEntry[];
  /** The return's event time as first sent. */
  timestamp: number;
  refundMode: string;
  returnMethod: string;
  reason: string;
  items: StoredReturnItem[];
  /** Every identity of the original order plus the return's own devices, as `kind#digest`. */
  identities: string[];
  /** Present while the return counts (any status but CANCELLED). */
  applied?: ReturnEffects;
  /** One decision per returned line item, in order, with the variables it was made from. */
  decisions: Decision[];
  responseJson: string;
  version: number;
}

/** Units returned so far per order line, from the order's RETURNED_UNITS item. */
export function returnedUnitsFrom(item: Record<string, unknown> | undefined): Map<number, number> {
  const units = new Map<number, number>();
  for (const [name, value] of Object.entries(item ?? {})) {
    const line = /^u_(\d+)$/.exec(name)?.[1];
    if (line !== undefined && typeof value === 'number') units.set(Number(line), value);
  }
  return units;
}

/**
 * Writes a new return, the order's returned units, every counter it moves and, for REVIEW
 * decisions, its review-queue item, and its webhook outbox items in one transaction. If the return id was taken meanwhile,
 * nothing is written and the winner's record is returned.
 */
export async function recordReturn(
  record: StoredReturn,
  changes: HistoryChanges,
  storedItems: Map<string, Record<string, unknown>>,
  now: number,
): Promise<RecordOutcome<StoredReturn>> {
  const key = keys.return(record.merchantId, record.providerReturnId);
  const lineDecisions = record.decisions.map((decision, i) => ({
    itemRef: itemRefOf(record.items[i]!),
    decision,
  }));
  return recordOnce<StoredReturn>(
    [
      decidedEventPut(returnTarget(record), record, { [VERSION_ATTRIBUTE]: record.version }),
      ...unitsUpdate(record, record.applied?.units, 1),
      ...changes.toTransactItems(record.merchantId, storedItems, now),
      ...reviewItemsFor(record.merchantId, 'return', key, lineDecisions, record.identities, now),
      ...eventWebhookItems(
        { ...record, eventType: 'return', eventKey: key, decisions: lineDecisions },
        storedItems,
        now,
      ),
    ],
    key,
  );
}

/**
 * Replaces a return read at `expectedVersion` (a status change), moving the order's returned units
 * by `unitsSign` times the given units and the identity counters in `changes`, all or nothing.
 */
export async function updateReturn(
  record: StoredReturn,
  expectedVersion: number,
  units: { moved: Record<string, number> | undefined; sign: 1 | -1 },
  changes: HistoryChanges,
  now: number,
): Promise<void> {
  try {
    await transactWrite([
      { Put: { TableName: tableName, Item: returnItem(record), ...versionCondition(expectedVersion) } },
      ...unitsUpdate(record, units.moved, units.sign),
      ...changes.toTransactItems(record.merchantId, new Map(), now),
    ]);
  } catch (error) {
    if (error instanceof ConditionFailedError && error.index === 0) throw new StaleRecordError('return');
    throw error;
  }
}

export function getReturn(merchantId: string, providerReturnId: string): Promise<StoredReturn | undefined> {
  return getRecord<StoredReturn>(keys.return(merchantId, providerReturnId));
}

/** Names a returned line for a reviewer: its first identifier as sent. */
const itemRefOf = (item: StoredReturnItem) => {
  const [first] = item.identifiers;
  return first ? `${first.identifierType}:${first.identifier}` : `line:${item.orderLine}`;
};

const returnTarget = (record: StoredReturn) => ({
  eventType: 'return' as const,
  key: keys.return(record.merchantId, record.providerReturnId),
  eventId: record.providerReturnId,
});

/** A replaced return keeps its place among the merchant's decided events (backtests of returns). */
function returnItem(record: StoredReturn): Record<string, unknown> {
  return { ...decidedEventItem(returnTarget(record), record), [VERSION_ATTRIBUTE]: record.version };
}

function unitsUpdate(
  record: StoredReturn,
  units: Record<string, number> | undefined,
  sign: 1 | -1,
): TransactItems {
  const entries = Object.entries(units ?? {}).filter(([, n]) => n !== 0);
  if (entries.length === 0) return [];
  return [
    {
      Update: {
        TableName: tableName,
        Key: keys.orderReturnedUnits(record.merchantId, record.providerOrderId),
        UpdateExpression: `ADD ${entries.map((_, i) => `#u${i} :u${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([line], i) => [`#u${i}`, `u_${line}`])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, n], i) => [`:u${i}`, sign * n])),
      },
    },
  ];
}
