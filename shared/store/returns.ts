import { retainUntil } from '../retention.ts';
import type { Decision } from '../scoring/decide.ts';
import { tableName } from './client.ts';
import { type DecidedEventRecord, decidedEventItem, type StoredDecision } from './decided-events.ts';
import { freeTextPut } from './free-text.ts';
import type { HistoryChanges } from './identity-history.ts';
import { keys } from './keys.ts';
import { getRecord } from './record-once.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';
import { ConditionFailedError, type TransactItem, type TransactItems, transactWrite } from './transact.ts';
import { StaleRecordError, VERSION_ATTRIBUTE, versionCondition } from './versioned.ts';

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
}

interface ReturnStatusEntry {
  status: string;
  timestamp: number;
  recordedAt: string;
}

/** A recorded return: its decisions, what it counted, and what dispositions need. */
export interface ReturnRecord extends DecidedEventRecord {
  providerReturnId: string;
  serviceReturnId: string;
  providerOrderId: string;
  serviceOrderId: string;
  /** Hashes of the request, whole and without `status` and `timestamp` (natural-key-repeats.ts). */
  requestHash: string;
  stableHash: string;
  /** Current status: the one with the latest timestamp. */
  status: string;
  statusTimestamp: number;
  statusHistory: ReturnStatusEntry[];
  /** The return's event time as first sent. */
  timestamp: number;
  refundMode: string;
  returnMethod: string;
  items: StoredReturnItem[];
  /** Every identity of the original order plus the return's own devices, as `kind#digest`. */
  identities: string[];
  /** Present while the return counts (any status but CANCELLED). */
  applied?: ReturnEffects;
  /**
   * One decision per returned line item, in order, with the variables it was made from: whole when
   * the use case writes it, fields packed when read back (decisionsOfItem restores them).
   */
  decisions: readonly (Decision | StoredDecision)[];
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
 * Replaces a return read at `expectedVersion` (a status change), moving the order's returned units
 * by `unitsSign` times the given units and the identity counters in `changes`, all or nothing.
 */
export async function updateReturn(
  record: ReturnRecord,
  expectedVersion: number,
  units: { moved: Record<string, number> | undefined; sign: 1 | -1 },
  changes: HistoryChanges,
  now: number,
): Promise<void> {
  try {
    await transactWrite([
      { Put: { TableName: tableName, Item: returnItem(record), ...versionCondition(expectedVersion) } },
      ...returnedUnitsUpdate(record, units.moved, units.sign),
      ...changes.toTransactItems(record.merchantId, new Map(), now),
    ]);
  } catch (error) {
    if (error instanceof ConditionFailedError && error.index === 0) throw new StaleRecordError('return');
    throw error;
  }
}

/**
 * The Put of a return's free text (its reason and each returned line's, by line index) for the
 * return's own transaction: kept apart from the record, for its own shorter retention.
 */
export function returnReasonsPut(
  merchantId: string,
  providerReturnId: string,
  reasons: { reason: string; lines: readonly string[] },
  now: number,
): TransactItem {
  return freeTextPut(keys.return(merchantId, providerReturnId), reasons, now);
}

export function getReturn(merchantId: string, providerReturnId: string): Promise<ReturnRecord | undefined> {
  return getRecord<ReturnRecord>(keys.return(merchantId, providerReturnId));
}

const returnTarget = (record: ReturnRecord) => ({
  eventType: 'return' as const,
  key: keys.return(record.merchantId, record.providerReturnId),
  eventId: record.providerReturnId,
});

/** A replaced return keeps its place among the merchant's decided events (backtests of returns). */
function returnItem(record: ReturnRecord): Record<string, unknown> {
  return { ...decidedEventItem(returnTarget(record), record), [VERSION_ATTRIBUTE]: record.version };
}

/** The order's returned units moved by `sign` times `units` (a return counted or uncounted). */
export function returnedUnitsUpdate(
  record: Pick<ReturnRecord, 'merchantId' | 'providerOrderId' | 'createdAt'>,
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
        UpdateExpression: `SET #ttl = :ttl ADD ${entries.map((_, i) => `#u${i} :u${i}`).join(', ')}`,
        ExpressionAttributeNames: {
          ...Object.fromEntries(entries.map(([line], i) => [`#u${i}`, `u_${line}`])),
          '#ttl': TTL_ATTRIBUTE,
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(entries.map(([, n], i) => [`:u${i}`, sign * n])),
          // Beside its order: kept as long as the order is.
          ':ttl': retainUntil('events', Date.parse(record.createdAt)),
        },
      },
    },
  ];
}
