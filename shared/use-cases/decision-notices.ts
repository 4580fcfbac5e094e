import type { EventType } from '../contract/endpoints.ts';
import type { TableKey } from '../store/keys.ts';
import { type DecisionsUnderReview, publicReview, reviewOf } from '../store/reviews.ts';
import type { TransactItems } from '../store/transact.ts';
import { webhookOutboxItems } from '../store/webhook-deliveries.ts';
import type { WebhookNotice, WebhookSubscription } from '../webhooks/events.ts';

/**
 * The webhook outbox items of a decided event, for its own transaction: `decision.created` with the
 * response the merchant got (the same object: same decision objects, same ids), and `review.created`
 * when it opened a review. The subscriptions come from the request's first read, so a merchant
 * without webhook endpoints writes nothing here.
 */
export function decidedEventOutbox(
  event: {
    merchantId: string;
    eventType: EventType;
    eventKey: TableKey;
    response: object;
    decisions: DecisionsUnderReview;
  },
  subscriptions: readonly WebhookSubscription[],
  now: number,
): TransactItems {
  if (subscriptions.length === 0) return [];
  const { merchantId, eventType, response } = event;
  const parts = Array.isArray(event.decisions) ? event.decisions.map((p) => p.decision) : [event.decisions];
  const outcomes = parts.map((d) => d.decision);
  const review = reviewOf(merchantId, eventType, event.eventKey, event.decisions, [], now);
  const notices: WebhookNotice[] = [
    { type: 'decision.created', eventType, outcomes, data: { eventType, ...response } },
    ...(review
      ? [
          {
            type: 'review.created' as const,
            eventType,
            outcomes,
            data: { eventType, ...response, review: publicReview(review) },
          },
        ]
      : []),
  ];
  return webhookOutboxItems(merchantId, subscriptions, notices, now);
}
