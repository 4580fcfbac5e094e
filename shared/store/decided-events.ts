import { EVENT_TYPES, type EventType } from '../contract/endpoints.ts';
import type { DecidedEventRow } from '../learning/labels.ts';
import { retainUntil } from '../retention.ts';
import type { BacktestEvent } from '../scoring/backtest.ts';
import type { Decision } from '../scoring/decide.ts';
import { VALUE_FIELDS } from '../scoring/decision-thresholds.ts';
import { nonZeroFields, normalizeFields } from '../scoring/variables.ts';
import { tableName } from './client.ts';
import type { HistoryChanges } from './identity-history.ts';
import { queryGsi1 } from './index-query.ts';
import { gsi1, type TableKey } from './keys.ts';
import { packFields, unpackFields } from './packed-fields.ts';
import { type RecordOutcome, recordOnce } from './record-once.ts';
import { type DecisionsUnderReview, reviewItemsFor } from './reviews.ts';
import { GSI1, PARTITION_KEY, TTL_ATTRIBUTE } from './table-definition.ts';
import type { TransactItem, TransactItems } from './transact.ts';

/** Where a decided event is stored: its own key, and its id in the type's GSI1 listing. */
export interface DecidedEventTarget {
  eventType: EventType;
  key: TableKey;
  eventId: string;
}

/**
 * What every decided event record carries: `createdAt` is when it arrived (its GSI1 listing time),
 * `eventAt` the event's own time (epoch ms) as it was scored, set once: a status-only update may
 * move an order's `timestamp`, never this (training dates its rows by it).
 */
export interface DecidedEventRecord {
  merchantId: string;
  createdAt: string;
  eventAt: number;
}

/**
 * The item of a decided event (order, return, signup, login, account update): its record under its
 * key, listed in GSI1 by type and time (backtests read it back with listDecidedEvents).
 */
export function decidedEventItem(
  { eventType, key, eventId }: DecidedEventTarget,
  record: DecidedEventRecord,
): Record<string, unknown> {
  const stored: Record<string, unknown> = { ...record };
  const decisions = (record as { decisions?: unknown }).decisions;
  if (isDecision(stored.decision)) stored.decision = compactDecision(eventType, stored.decision);
  if (Array.isArray(decisions))
    stored.decisions = decisions.map((d: unknown) => {
      if (isDecision(d)) return compactDecision(eventType, d);
      const inner = (d as { decision?: unknown } | null)?.decision;
      return isDecision(inner) ? { ...(d as object), decision: compactDecision(eventType, inner) } : d;
    });
  return {
    ...key,
    ...gsi1.eventsByType(record.merchantId, eventType, record.createdAt, eventId),
    entity: eventType,
    ...stored,
    // Kept for the events' retention from when it arrived; a replaced record keeps its expiry.
    [TTL_ATTRIBUTE]: retainUntil('events', Date.parse(record.createdAt)),
  };
}

/**
 * A decision as its record keeps it: only the fields that are not zero (most are: an order's
 * velocities of fresh identities), packed (packed-fields.ts): an order's decision goes from about
 * 880 to 180 bytes, on the record and its GSI1 copy. Fields are read only through decisionsOfItem,
 * which restores them whole.
 */
export type StoredDecision = Omit<Decision, 'fields'> & { fields?: Uint8Array };

function compactDecision(eventType: EventType, decision: Decision): StoredDecision | Decision {
  // A record read back and written again (a return's status update) carries them packed already.
  if (!decision.fields || decision.fields instanceof Uint8Array) return { ...decision };
  return { ...decision, fields: packFields(nonZeroFields(eventType, decision.fields)) };
}

/**
 * The one Put recording a decided event: refused when the key already holds one, and then the
 * stored item comes back with the cancellation (recordOnce answers from it).
 */
function decidedEventPut(
  target: DecidedEventTarget,
  record: DecidedEventRecord,
  extra: Record<string, unknown> = {},
): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...decidedEventItem(target, record), ...extra },
      ConditionExpression: 'attribute_not_exists(PK)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
}

/** Everything one decided event writes: the one transaction of a scored request. */
export interface DecidedEventWrite {
  target: DecidedEventTarget;
  record: DecidedEventRecord & { identities: readonly string[] };
  /** Attributes stored beside the record's own (a return's version). */
  attributes?: Record<string, unknown>;
  /** One decision, or one per part of the event (a return's lines): a REVIEW opens a review item. */
  decisions: DecisionsUnderReview;
  /** Every counter and link the event moves. */
  changes: HistoryChanges;
  /** Further items of the same transaction: the webhook outbox, the Idempotency-Key record, ... */
  alsoWrite: TransactItems;
  /** Today's review-counter shard the event read: a review it opens is counted there. */
  reviewCounter?: TableKey | undefined;
}

/**
 * Writes a decided event in one transaction: its record first (conditional on its key being new),
 * one update per identity it moves (stale buckets pruned with the items the request read), its
 * review item and its count in the day's review counter when a decision is REVIEW, and the further
 * items. If the key was taken meanwhile (a concurrent duplicate), nothing is written and the stored
 * item comes back.
 */
export function recordDecidedEvent(
  event: DecidedEventWrite,
  storedItems: Map<string, Record<string, unknown>>,
  now: number,
): Promise<RecordOutcome<Record<string, unknown>>> {
  const { target, record } = event;
  return recordOnce(
    [
      decidedEventPut(target, record, event.attributes),
      ...event.changes.toTransactItems(record.merchantId, storedItems, now),
      ...reviewItemsFor(
        record.merchantId,
        target.eventType,
        target.key,
        event.decisions,
        record.identities,
        now,
        event.reviewCounter,
      ),
      ...event.alsoWrite,
    ],
    target.key,
  );
}

/**
 * Recent decided events of one type, for backtests. Every scored event record carries
 * `gsi1.eventsByType(...)` attributes, `entity` = its event type, and its decision(s) as `decision`
 * (one) or `decisions` (one per part, e.g. returned line items, as `{ decision }` or plain Decisions).
 * Only those attributes are read.
 */
export async function listDecidedEvents(
  merchantId: string,
  eventType: EventType,
  since: number,
  limit: number,
): Promise<{ events: BacktestEvent[]; more: boolean }> {
  const { results, more } = await queryGsi1(
    gsi1.eventPartitions(merchantId, eventType),
    {
      KeyConditionExpression: '#pk = :pk AND #sk >= :since',
      FilterExpression: '#entity = :type',
      ProjectionExpression: '#sk, #entity, #decision, #decisions',
      ExpressionAttributeNames: {
        '#pk': GSI1.partitionKey,
        '#sk': GSI1.sortKey,
        '#entity': 'entity',
        '#decision': 'decision',
        '#decisions': 'decisions',
      },
      ExpressionAttributeValues: {
        ':since': new Date(since).toISOString(),
        ':type': eventType,
      },
    },
    toBacktestEvent,
    limit,
  );
  return { events: results, more };
}

function toBacktestEvent(item: Record<string, unknown>): BacktestEvent | undefined {
  const sortKey = String(item[GSI1.sortKey] ?? '');
  const separator = sortKey.indexOf('#');
  const createdAt = sortKey.slice(0, separator);
  const eventId = sortKey.slice(separator + 1);
  const decisions = decisionsOfItem(item);
  if (separator < 0 || decisions.length === 0) return undefined;
  return { eventId, createdAt, decisions };
}

/**
 * The decision(s) of a stored event record, in part order (training reads them too), their fields
 * whole again (zero values restored, as the workflow saw them).
 */
export function decisionsOfItem(item: Record<string, unknown>): Decision[] {
  const eventType = EVENT_TYPES.find((type) => type === item.entity);
  return storedDecisionsOf(item).map((d) => {
    const fields = unpackFields(d.fields);
    if (!fields) return d;
    return { ...d, fields: eventType ? normalizeFields(eventType, fields) : fields };
  });
}

function storedDecisionsOf(item: Record<string, unknown>): Decision[] {
  return [
    ...(isDecision(item.decision) ? [item.decision] : []),
    ...(Array.isArray(item.decisions)
      ? item.decisions.flatMap((d: unknown) => {
          const inner = (d as { decision?: unknown } | null)?.decision;
          if (isDecision(d)) return [d];
          return isDecision(inner) ? [inner] : [];
        })
      : []),
  ];
}

function isDecision(value: unknown): value is Decision {
  const d = value as Partial<Decision> | null | undefined;
  return (
    typeof d === 'object' && d !== null && typeof d.decision === 'string' && typeof d.abuseScore === 'number'
  );
}

/** A decided event's item as a training row (training and the lake read it so); undefined if not one. */
export function decidedEventRowOf(
  item: Record<string, unknown>,
  eventType: EventType,
): DecidedEventRow | undefined {
  const sortKey = String(item[GSI1.sortKey] ?? '');
  const separator = sortKey.indexOf('#');
  const decisions = decisionsOfItem(item);
  if (separator < 0 || decisions.length === 0) return undefined;
  // The event's own time as scored (`eventAt`, never moved by status updates); records written before
  // it existed fall back to their arrival time, the listing time.
  const at = typeof item.eventAt === 'number' ? item.eventAt : Date.parse(sortKey.slice(0, separator));
  const valueField = VALUE_FIELDS[eventType];
  return {
    eventType,
    eventKey: String(item[PARTITION_KEY]),
    eventId: sortKey.slice(separator + 1),
    at,
    identities: Array.isArray(item.identities) ? item.identities.map(String) : [],
    parts: decisions.map((d) => {
      const value = valueField ? Number(d.fields?.[valueField]) : Number.NaN;
      return {
        signals: d.signals ?? {},
        abuseScore: d.abuseScore,
        modelVersion: d.modelVersion,
        decision: d.decision,
        subDecision: d.subDecision,
        ...(d.fields ? { fields: d.fields } : {}),
        ...(d.modelThresholds ? { modelThresholds: d.modelThresholds } : {}),
        ...(Number.isFinite(value) ? { value } : {}),
      };
    }),
  };
}
