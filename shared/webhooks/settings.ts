import * as z from 'zod';
import { DECISION_OUTCOMES } from '../schemas/decision.ts';
import { EVENT_TYPES, type EventType } from '../scoring/workflow.ts';
import { WEBHOOK_EVENT_TYPES } from './events.ts';

/** What a merchant sets on a webhook endpoint: where, which events, and the decision filters. */
export const webhookSettingsSchema = z.strictObject({
  url: z.string().min(1).max(2_048),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1),
  eventTypes: z
    .array(z.enum(EVENT_TYPES as [EventType, ...EventType[]]))
    .min(1)
    .optional(),
  outcomes: z.array(z.enum(DECISION_OUTCOMES)).min(1).optional(),
});
export type WebhookSettings = z.infer<typeof webhookSettingsSchema>;
