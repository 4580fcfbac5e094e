import type { ConsoleEventType as EventType } from '../schemas/console.ts';
import type { DecisionOutcome } from '../schemas/decision.ts';
import type { WEBHOOK_EVENT_TYPES } from '../schemas/webhook-event-types.ts';

/**
 * What a merchant can subscribe to, and the payload every delivery carries. Pure: the store writes
 * these payloads in the event's own transaction (outbox) and the worker posts them unchanged.
 */
type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent only by `webhooks test` / `POST /v1/webhooks/{id}/test`, to the one endpoint asked for. */
export const TEST_EVENT_TYPE = 'webhook.test';

const WEBHOOK_API_VERSION = 'v1';

/** What an enabled endpoint wants, as read in the decision's first BatchGetItem (no secret, no URL). */
export interface WebhookSubscription {
  webhookId: string;
  events: WebhookEventType[];
  /** Only events of these types (order, return, ...); absent means every type. */
  eventTypes?: EventType[];
  /** decision.created only for events with one of these outcomes; absent means every outcome. */
  outcomes?: DecisionOutcome[];
}

/** One event for receivers: `id` is the Webhook-Id, the same on every attempt and redelivery. */
export interface WebhookEvent {
  id: string;
  type: WebhookEventType | typeof TEST_EVENT_TYPE;
  createdAt: string;
  apiVersion: typeof WEBHOOK_API_VERSION;
  data: Record<string, unknown>;
}

/** Something that happened to a merchant's event, before it is matched against subscriptions. */
export interface WebhookNotice {
  type: WebhookEventType;
  eventType: EventType;
  /** The outcomes of the event's decisions (one per part: returns decide per line). */
  outcomes: readonly DecisionOutcome[];
  data: Record<string, unknown>;
}

/** The subscriptions a notice goes to: event subscribed, type filter, and (decisions) outcome filter. */
export function subscribersOf(
  subscriptions: readonly WebhookSubscription[],
  notice: WebhookNotice,
): WebhookSubscription[] {
  return subscriptions.filter(
    (s) =>
      s.events.includes(notice.type) &&
      (!s.eventTypes || s.eventTypes.includes(notice.eventType)) &&
      (notice.type !== 'decision.created' ||
        !s.outcomes ||
        notice.outcomes.some((outcome) => s.outcomes?.includes(outcome))),
  );
}

export function webhookEvent(
  id: string,
  type: WebhookEvent['type'],
  data: Record<string, unknown>,
  now: number,
): WebhookEvent {
  return { id, type, createdAt: new Date(now).toISOString(), apiVersion: WEBHOOK_API_VERSION, data };
}
