import { ApiError, notFound } from '../errors.ts';
import type { ManagementUseCase } from '../http/management-handler.ts';
import { auditPutsWithNote } from '../store/audit.ts';
import { recordIdOf } from '../store/keys.ts';
import { getReview, listReviewPage, type Review, withNotes } from '../store/reviews.ts';
import { resolveReview } from '../use-cases/resolve-review.ts';
import { explainDecision } from './explain-decision.ts';

const DEFAULT_PAGE = 25;

/** GET /v1/reviews: the queue, oldest first (the next one to work on comes first). */
export const listReviews: ManagementUseCase<'reviewList'> = async ({ caller, query }) => {
  const page = await listReviewPage(
    caller.merchantId,
    { status: query.status ?? 'open', ...(query.eventType ? { eventType: query.eventType } : {}) },
    query.cursor,
    query.limit ?? DEFAULT_PAGE,
  );
  return {
    body: {
      items: (await withNotes(page.items)).map(toWire),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    },
  };
};

/** GET /v1/reviews/{review-id}: the review and the explanation of its event's decision. */
export const showReview: ManagementUseCase<'reviewShow'> = async ({ caller, pathParameters }) => {
  const stored = await getReview(caller.merchantId, pathParameters['review-id'] ?? '');
  if (!stored) throw notFound('No review with this id.');
  const [review = stored] = await withNotes([stored]);
  const explanation = await explainDecision(
    caller.merchantId,
    stored.eventType,
    recordIdOf(stored.eventKey),
    stored.eventKey,
  );
  return { body: { review: toWire(review), ...(explanation ? { explanation } : {}) } };
};

/** POST /v1/reviews/{review-id}/resolve: the store's resolution plus the audit entry, in one transaction. */
export const resolve: ManagementUseCase<'reviewResolve'> = async ({ caller, pathParameters, body }) => {
  const reviewId = pathParameters['review-id'] ?? '';
  const now = Date.now();
  const result = await resolveReview({
    merchantId: caller.merchantId,
    reviewId,
    outcome: body.outcome,
    ...(body.note ? { note: body.note } : {}),
    resolvedBy: caller.keyName,
    noteInWebhooks: caller.webhookReviewNotes,
    alsoWrite: auditPutsWithNote(
      caller.merchantId,
      {
        at: new Date(now).toISOString(),
        action: 'review.resolved',
        keyId: caller.keyId,
        keyName: caller.keyName,
        subject: reviewId,
        detail: body.outcome,
      },
      body.note,
    ),
    now,
  });
  switch (result.status) {
    case 'not_found':
      throw notFound('No review with this id.');
    case 'already_resolved':
      throw new ApiError(
        'review_already_resolved',
        `The review was resolved before${result.review.resolution ? ` (${result.review.resolution.outcome} at ${result.review.resolution.resolvedAt})` : ''}.`,
      );
    case 'resolved':
      return { body: toWire(result.review) };
  }
};

function toWire(review: Review) {
  return {
    reviewId: review.reviewId,
    eventType: review.eventType,
    providerId: recordIdOf(review.eventKey),
    status: review.status,
    createdAt: review.createdAt,
    decisions: review.decisions,
    ...(review.resolution ? { resolution: review.resolution } : {}),
  };
}
