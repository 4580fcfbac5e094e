import type { EventType } from '../scoring/workflow.ts';
import type { WebhookNotice } from '../webhooks/events.ts';
import { keyString } from './batch-get.ts';
import type { TableKey } from './keys.ts';
import { webhookKeys } from './keys.ts';
import { type DecisionsUnderReview, publicReview, reviewOf } from './reviews.ts';
import type { TransactItems } from './transact.ts';
import { webhookOutboxItems } from './webhook-deliveries.ts';
import { subscriptionsFromItem } from './webhooks.ts';

/**
 * The outbox items of a decided event, for its own transaction: `decision.created` with the response
 * the merchant got (same decision objects, same ids), and `review.created` when it opened a review.
 * The merchant's subscriptions come from the request's first BatchGetItem (loadDecisionContext reads
 * them unless the call is not to notify), so a merchant without endpoints costs nothing here.
 */
export function eventWebhookItems(
  event: {
    merchantId: string;
    eventType: EventType;
    eventKey: TableKey;
    responseJson: string;
    decisions: DecisionsUnderReview;
  },
  storedItems: Map<string, Record<string, unknown>>,
  now: number,
): TransactItems {
  const { merchantId, eventType } = event;
  const subscriptions = subscriptionsFromItem(
    storedItems.get(keyString(webhookKeys.subscriptions(merchantId))),
  );
  if (subscriptions.length === 0) return [];
  const parts = Array.isArray(event.decisions) ? event.decisions.map((p) => p.decision) : [event.decisions];
  const outcomes = parts.map((d) => d.decision);
  const response = JSON.parse(event.responseJson) as Record<string, unknown>;
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
