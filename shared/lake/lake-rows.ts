import { EVENT_TYPES } from '../contract/endpoints.ts';
import { sampleKeyOf } from '../learning/sampling.ts';
import { decidedEventRowOf } from '../store/decided-events.ts';
import type { StoredDispositions } from '../store/dispositions.ts';
import type { StoredDispute } from '../store/disputes.ts';
import type { Review } from '../store/reviews.ts';
import type { LakeRow } from './lake-tables.ts';

/**
 * What one table item, as it now stands, puts in the lake: the rows of a decided event, a dispute, a
 * return's dispositions, a resolved review or a list entry; nothing for any other item. Pure: the
 * Firehose transform (AWS) and the local stream poller both call it on a stream record's new image.
 * `changedAt` is the change's time on the stream (epoch ms).
 */
export function lakeRowsOfItem(item: Record<string, unknown>, changedAt: number): LakeRow[] {
  const merchantId = typeof item.merchantId === 'string' ? item.merchantId : undefined;
  if (!merchantId) return [];
  const change = { revision: typeof item.version === 'number' ? item.version : 0, changed_at: changedAt };
  const eventType = EVENT_TYPES.find((type) => type === item.entity);
  if (eventType) {
    const event = decidedEventRowOf(item, eventType);
    if (!event) return [];
    return event.parts.map((part, index) => ({
      table: 'decided_events',
      kind: eventType,
      merchantId,
      day: dayOf(event.at),
      values: {
        event_key: event.eventKey,
        event_id: event.eventId,
        part: index,
        event_at: event.at,
        decision: part.decision ?? null,
        sub_decision: part.subDecision ?? null,
        abuse_score: part.abuseScore,
        model_version: part.modelVersion,
        value: part.value ?? null,
        signals: JSON.stringify(part.signals),
        fields: part.fields ? JSON.stringify(part.fields) : null,
        model_thresholds: part.modelThresholds ? JSON.stringify(part.modelThresholds) : null,
        identities: [...event.identities],
        sample_key: sampleKeyOf(`${merchantId}|${eventType}`, event.eventKey, index),
        ...change,
      },
    }));
  }
  switch (item.entity) {
    case 'dispute':
      return [disputeRow(item as unknown as StoredDispute, change)];
    case 'returnDispositions':
      return dispositionRows(item as unknown as StoredDispositions, change);
    case 'review':
      return reviewRows(item as unknown as Review, change);
    case 'listEntry':
      return [listEntryRow(item, merchantId, change)];
    default:
      return [];
  }
}

type Change = { revision: number; changed_at: number };

/** A feedback row's columns that one kind of feedback leaves empty. */
export const NO_FEEDBACK = {
  feedback_id: null,
  order_id: null,
  dispute_status: null,
  return_id: null,
  line: null,
  item_condition: null,
  disposition_outcome: null,
  event_key: null,
  review_outcome: null,
} as const;

function disputeRow(dispute: StoredDispute, change: Change): LakeRow<'feedback'> {
  const at = dispute.current.timestamp;
  return {
    table: 'feedback',
    kind: 'dispute',
    merchantId: dispute.merchantId,
    day: dayOf(at),
    values: {
      ...NO_FEEDBACK,
      feedback_id: dispute.disputeId,
      order_id: dispute.providerOrderId,
      dispute_status: dispute.current.disputeStatus,
      feedback_at: at,
      ...change,
    },
  };
}

/** One row per line, all in the day the item last changed, so one change writes one partition. */
function dispositionRows(stored: StoredDispositions, change: Change): LakeRow<'feedback'>[] {
  const day = dayOf(Date.parse(stored.updatedAt));
  return Object.entries(stored.byLine).map(([line, d]) => ({
    table: 'feedback',
    kind: 'disposition',
    merchantId: stored.merchantId,
    day,
    values: {
      ...NO_FEEDBACK,
      feedback_id: stored.providerReturnId,
      return_id: stored.providerReturnId,
      line: Number(line),
      item_condition: d.returnedItemCondition,
      disposition_outcome: d.dispositionOutcome,
      feedback_at: Date.parse(d.recordedAt),
      ...change,
    },
  }));
}

/** A review is feedback once resolved; an open one says nothing yet. */
function reviewRows(review: Review, change: Change): LakeRow<'feedback'>[] {
  if (!review.resolution) return [];
  const at = Date.parse(review.resolution.resolvedAt);
  return [
    {
      table: 'feedback',
      kind: 'review',
      merchantId: review.merchantId,
      day: dayOf(at),
      values: {
        ...NO_FEEDBACK,
        feedback_id: review.reviewId,
        event_key: review.eventKey.PK,
        review_outcome: review.resolution.outcome,
        feedback_at: at,
        ...change,
      },
    },
  ];
}

/** Digests and rule names only: the masked hint, the reason and who made it stay in the table. */
function listEntryRow(
  item: Record<string, unknown>,
  merchantId: string,
  change: Change,
): LakeRow<'list_changes'> {
  const text = (name: string) => (typeof item[name] === 'string' ? (item[name] as string) : null);
  const time = (name: string) => (typeof item[name] === 'string' ? Date.parse(item[name] as string) : null);
  const createdAt = time('createdAt') ?? change.changed_at;
  return {
    table: 'list_changes',
    kind: 'list_entry',
    merchantId,
    day: dayOf(createdAt),
    values: {
      entry_id: text('entryId'),
      list: text('list'),
      identity_kind: text('kind'),
      digest: text('digest'),
      source: text('source'),
      created_at: createdAt,
      effective_at: time('effectiveAt'),
      // The table keeps the entry's own expiry as `expiry` (its `expiresAt` is the TTL).
      expires_at: time('expiry'),
      cause: text('cause'),
      ...change,
    },
  };
}

const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);
