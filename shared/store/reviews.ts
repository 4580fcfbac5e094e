import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../contract/endpoints.ts';
import type { IdentityRef } from '../identity/identities.ts';
import { identityId } from '../identity/identity-ids.ts';
import { importedEvent } from '../request-scope.ts';
import { retainUntil } from '../retention.ts';
import type { DecisionOutcome } from '../schemas/decision.ts';
import type { Decision } from '../scoring/decide.ts';
import { keyString } from './batch-get.ts';
import { sha256Hex } from './canonical.ts';
import { documentClient, tableName } from './client.ts';
import { reviewCounted } from './decision-settings.ts';
import { freeTextPut, readFreeText } from './free-text.ts';
import { queryGsi1 } from './index-query.ts';
import { gsi1, keys, recordIdOf, type TableKey } from './keys.ts';
import { decodeSortKeyCursor, encodeSortKeyCursor, type Page } from './pages.ts';
import { GSI1, TTL_ATTRIBUTE } from './table-definition.ts';
import { ConditionFailedError, type TransactItems, transactWrite } from './transact.ts';

/**
 * The review queue: a REVIEW decision puts its event into the merchant's queue (one review item per
 * event, written in the event's own transaction); a person resolves it as abuse or legitimate, and
 * that label lands on the event's identities like any other feedback.
 */
export type ReviewStatus = 'open' | 'resolved';
export type ReviewOutcome = 'abuse' | 'legitimate';
export const REVIEW_STATUSES: readonly ReviewStatus[] = ['open', 'resolved'];
export const REVIEW_OUTCOMES: readonly ReviewOutcome[] = ['abuse', 'legitimate'];

/** What a reviewer needs to see of a decision (its full variables stay on the event record). */
interface ReviewedDecision {
  /** The line item (or other part of the event) the decision is for, when the event has several. */
  itemRef?: string;
  decision: DecisionOutcome;
  subDecision: string;
  reason: string;
  abuseScore: number;
  modelVersion: string;
  workflowVersion: string;
}

export interface Review {
  merchantId: string;
  reviewId: string;
  eventType: EventType;
  /** Key of the event's record (an order, a return, ...). */
  eventKey: TableKey;
  /** The event's identities as `kind#digest`: the resolution's label lands on these. */
  identities: string[];
  decisions: ReviewedDecision[];
  status: ReviewStatus;
  createdAt: string;
  resolution?: { outcome: ReviewOutcome; note?: string; resolvedAt: string; resolvedBy?: string };
}

/** One review per event: the id follows from the event's key, so a retried write cannot add a second. */
export const reviewIdFor = (eventType: EventType, eventKey: TableKey) =>
  `rev_${sha256Hex(`${eventType}|${eventKey.PK}|${eventKey.SK}`).slice(0, 24)}`;

/** A decision per part of the event (returns decide per returned line item). */
export type DecisionsUnderReview = Decision | readonly { itemRef: string; decision: Decision }[];

/** The review a set of decisions opens: one when at least one decision is REVIEW, else none. Pure. */
export function reviewOf(
  merchantId: string,
  eventType: EventType,
  eventKey: TableKey,
  decisions: DecisionsUnderReview,
  identities: readonly (IdentityRef | string)[],
  now: number,
): Review | undefined {
  const parts = isDecisionList(decisions) ? decisions : [{ itemRef: undefined, decision: decisions }];
  const reviewed = parts
    .filter((p) => p.decision.decision === 'REVIEW')
    .map(({ itemRef, decision }) => ({
      ...(itemRef !== undefined ? { itemRef } : {}),
      ...summary(decision),
    }));
  // Imported history is already decided: a review item for it would flood the queue with the past.
  if (reviewed.length === 0 || importedEvent()) return undefined;
  return {
    merchantId,
    reviewId: reviewIdFor(eventType, eventKey),
    eventType,
    eventKey: { PK: eventKey.PK, SK: eventKey.SK },
    identities: [...new Set(identities.map((i) => (typeof i === 'string' ? i : identityId(i))))],
    decisions: reviewed,
    status: 'open',
    createdAt: new Date(now).toISOString(),
  };
}

/**
 * The TransactWriteItems entries to append to the event's own transaction: a Put of the review item
 * when at least one decision is REVIEW (and its count in the day's review counter), else nothing.
 * Pure.
 */
export function reviewItemsFor(
  merchantId: string,
  eventType: EventType,
  eventKey: TableKey,
  decisions: DecisionsUnderReview,
  identities: readonly (IdentityRef | string)[],
  now: number,
  counter?: TableKey,
): TransactItems {
  const review = reviewOf(merchantId, eventType, eventKey, decisions, identities, now);
  if (!review) return [];
  return [
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.review(merchantId, review.reviewId),
          ...gsi1.reviewByStatus(merchantId, 'open', review.createdAt, review.reviewId),
          entity: 'review',
          ...review,
          [TTL_ATTRIBUTE]: retainUntil('reviews', now),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    ...(counter ? [reviewCounted(counter, now)] : []),
  ];
}

/** What a merchant's receiver is told of a review: no internal keys or identity digests. */
export function publicReview(review: Review) {
  const { merchantId: _m, eventKey, identities: _i, ...shown } = review;
  // The merchant's own id of the event (providerOrderId, providerReturnId, ...), as the console shows it.
  return { ...shown, providerId: recordIdOf(eventKey) };
}

function isDecisionList(
  value: DecisionsUnderReview,
): value is readonly { itemRef: string; decision: Decision }[] {
  return Array.isArray(value);
}

const summary = (d: Decision): Omit<ReviewedDecision, 'itemRef'> => ({
  decision: d.decision,
  subDecision: d.subDecision,
  reason: d.reason,
  abuseScore: d.abuseScore,
  modelVersion: d.modelVersion,
  workflowVersion: d.workflowVersion,
});

/** Reviews of a merchant in one status, newest first. */
export async function listReviews(
  merchantId: string,
  status: ReviewStatus,
  limit: number,
): Promise<{ reviews: Review[]; more: boolean }> {
  const { results, more } = await queryGsi1(
    gsi1.reviewPartitions(merchantId, status),
    {
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
    },
    toReview,
    limit,
  );
  return { reviews: results, more };
}

/** One page of the queue for the console: oldest first, optionally of one event type. */
export async function listReviewPage(
  merchantId: string,
  filter: { status: ReviewStatus; eventType?: EventType },
  cursor: string | undefined,
  limit: number,
): Promise<Page<Review>> {
  const after = cursor === undefined ? undefined : decodeSortKeyCursor(cursor);
  const { results, more, lastSortKey } = await queryGsi1(
    gsi1.reviewPartitions(merchantId, filter.status),
    {
      KeyConditionExpression: after === undefined ? '#pk = :pk' : '#pk = :pk AND #sk > :after',
      ExpressionAttributeNames: {
        '#pk': GSI1.partitionKey,
        ...(after === undefined ? {} : { '#sk': GSI1.sortKey }),
        ...(filter.eventType ? { '#type': 'eventType' } : {}),
      },
      ExpressionAttributeValues: {
        ...(after === undefined ? {} : { ':after': after }),
        ...(filter.eventType ? { ':type': filter.eventType } : {}),
      },
      ...(filter.eventType ? { FilterExpression: '#type = :type' } : {}),
    },
    toReview,
    limit,
    { oldestFirst: true },
  );
  return more && lastSortKey
    ? { items: results, nextCursor: encodeSortKeyCursor(lastSortKey) }
    : { items: results };
}

export async function getReview(merchantId: string, reviewId: string): Promise<Review | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.review(merchantId, reviewId), ConsistentRead: true }),
  );
  return Item ? toReview(Item) : undefined;
}

/** The review was resolved (or gone) when the resolution was written: nothing of it was written. */
export class ReviewNotOpenError extends Error {
  constructor(reviewId: string) {
    super(`review ${reviewId} is no longer open`);
    this.name = 'ReviewNotOpenError';
  }
}

/**
 * Writes a review's resolution with `alsoWrite` (the label's counter moves, the webhook outbox, the
 * console's audit entry) in one transaction, conditional on the review still being open, so a
 * label is never counted twice; when it is not open any more, nothing is written (ReviewNotOpenError).
 */
export async function saveReviewResolution(
  review: Review,
  resolution: NonNullable<Review['resolution']>,
  alsoWrite: TransactItems,
): Promise<void> {
  const { merchantId, reviewId } = review;
  const reviewKey = keys.review(merchantId, reviewId);
  const index = gsi1.reviewByStatus(merchantId, 'resolved', resolution.resolvedAt, reviewId);
  // The note is free text: kept apart, for its own shorter retention (free-text.ts).
  const { note, ...kept } = resolution;
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName,
          Key: reviewKey,
          UpdateExpression: 'SET #status = :resolved, #resolution = :resolution, #gpk = :gpk, #gsk = :gsk',
          ConditionExpression: '#status = :open',
          ExpressionAttributeNames: {
            '#status': 'status',
            '#resolution': 'resolution',
            '#gpk': GSI1.partitionKey,
            '#gsk': GSI1.sortKey,
          },
          ExpressionAttributeValues: {
            ':resolved': 'resolved',
            ':open': 'open',
            ':resolution': kept,
            ':gpk': index[GSI1.partitionKey],
            ':gsk': index[GSI1.sortKey],
          },
        },
      },
      ...(note ? [freeTextPut(reviewKey, { note }, Date.parse(resolution.resolvedAt))] : []),
      ...alsoWrite,
    ]);
  } catch (error) {
    if (error instanceof ConditionFailedError && error.index === 0) throw new ReviewNotOpenError(reviewId);
    throw error;
  }
}

/** The reviews with their reviewers' notes, where a note was written and is still kept. */
export async function withNotes(reviews: readonly Review[]): Promise<Review[]> {
  const resolved = reviews.filter((r) => r.resolution);
  const keyOf = (r: Review) => keys.review(r.merchantId, r.reviewId);
  const notes = await readFreeText(resolved.map(keyOf));
  return reviews.map((review) => {
    const note = notes.get(keyString(keyOf(review)))?.note;
    return typeof note === 'string' && review.resolution
      ? { ...review, resolution: { ...review.resolution, note } }
      : review;
  });
}

function toReview(item: Record<string, unknown>): Review {
  const resolution = item.resolution as Review['resolution'] | undefined;
  return {
    merchantId: item.merchantId as string,
    reviewId: item.reviewId as string,
    eventType: item.eventType as EventType,
    eventKey: item.eventKey as TableKey,
    identities: (item.identities as string[] | undefined) ?? [],
    decisions: (item.decisions as ReviewedDecision[] | undefined) ?? [],
    status: item.status as ReviewStatus,
    createdAt: item.createdAt as string,
    ...(resolution ? { resolution } : {}),
  };
}
