/**
 * What a webhook endpoint can subscribe to. Apart from the webhook schemas (webhooks.ts) so that the
 * event functions, whose outbox names these, do not build the management API's schemas at cold start.
 */
export const WEBHOOK_EVENT_TYPES = ['decision.created', 'review.created', 'review.resolved'] as const;
