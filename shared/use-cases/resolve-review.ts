import { uniqueIdentities } from '../identity/identities.ts';
import { parseIdentityIds } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import {
  getReview,
  publicReview,
  type Review,
  ReviewNotOpenError,
  type ReviewOutcome,
  saveReviewResolution,
} from '../store/reviews.ts';
import type { TransactItems } from '../store/transact.ts';
import { webhookOutboxItems } from '../store/webhook-deliveries.ts';
import { readSubscriptions } from '../store/webhooks.ts';

export type ResolveResult =
  | { status: 'resolved'; review: Review }
  | { status: 'not_found' }
  | { status: 'already_resolved'; review: Review };

/** A label moves these counters on the event's identities, at resolution time. */
const LABEL_METRIC: Record<ReviewOutcome, string> = {
  // Counted like an abusive disposition: every model reading abusive returns sees it.
  abuse: METRIC.abusiveReturns,
  // A mitigating count the order model reads with a negative weight.
  legitimate: METRIC.legitimateReviews,
};

/**
 * Resolves an open review (the console, the admin CLI): its label lands on the event's identities
 * like any other feedback, and `review.resolved` goes to the merchant's webhooks; the resolution, the
 * counter moves and the outbox item commit in one transaction, so a label is never counted twice.
 */
export async function resolveReview(input: {
  merchantId: string;
  reviewId: string;
  outcome: ReviewOutcome;
  note?: string;
  /** Who resolved it (a console key's holder), kept on the resolution. */
  resolvedBy?: string;
  /** Written in the same transaction (the console's audit entry). */
  alsoWrite?: TransactItems;
  now: number;
  /** false for imported history: the resolution is recorded but no webhook is sent. */
  notify?: boolean;
}): Promise<ResolveResult> {
  const { merchantId, reviewId, outcome, now } = input;
  const review = await getReview(merchantId, reviewId);
  if (!review) return { status: 'not_found' };
  if (review.status !== 'open') return { status: 'already_resolved', review };
  const resolution = {
    outcome,
    ...(input.note ? { note: input.note } : {}),
    resolvedAt: new Date(now).toISOString(),
    ...(input.resolvedBy ? { resolvedBy: input.resolvedBy } : {}),
  };
  const resolved: Review = { ...review, status: 'resolved', resolution };
  const identities = uniqueIdentities(parseIdentityIds(review.identities));
  const label = new HistoryChanges().addEach(identities, LABEL_METRIC[outcome], 1, now);
  const subscriptions = input.notify === false ? [] : await readSubscriptions(merchantId);
  const notice = {
    type: 'review.resolved' as const,
    eventType: review.eventType,
    outcomes: review.decisions.map((d) => d.decision),
    data: { eventType: review.eventType, review: publicReview(resolved) },
  };
  try {
    await saveReviewResolution(review, resolution, [
      // No stale-bucket pruning here (that needs the items read); the next scored event prunes them.
      ...label.toTransactItems(merchantId, new Map(), now),
      ...webhookOutboxItems(merchantId, subscriptions, [notice], now),
      ...(input.alsoWrite ?? []),
    ]);
  } catch (error) {
    if (!(error instanceof ReviewNotOpenError)) throw error;
    const current = await getReview(merchantId, reviewId);
    if (!current) throw error;
    return { status: 'already_resolved', review: current };
  }
  return { status: 'resolved', review: resolved };
}
