import * as z from 'zod';
import { CONSOLE_EVENT_TYPES } from './console.ts';
import { DECISION_OUTCOMES } from './decision.ts';
import { boundedInt, count, isoTime, label, MAX_PAGE_SIZE, serviceId, text } from './fields.ts';
import { WEBHOOK_EVENT_TYPES } from './webhook-event-types.ts';

/**
 * Webhook endpoints as merchants set them (admin CLI, management API) and as the management API
 * shows them: settings, status, deliveries. Secrets appear only in the answers that make them.
 */

const settings = {
  url: z
    // Any URL here; which ones may receive (https, public addresses) is the URL policy's to say.
    .url()
    .max(2_048)
    .meta({ description: 'https in production; http and local addresses in sandbox' }),
  // A list longer than the values there are could only repeat them.
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length),
  eventTypes: z
    .array(z.enum(CONSOLE_EVENT_TYPES))
    .min(1)
    .max(CONSOLE_EVENT_TYPES.length)
    .optional()
    .meta({ description: 'Only events of these types; absent means every type' }),
  outcomes: z
    .array(z.enum(DECISION_OUTCOMES))
    .min(1)
    .max(DECISION_OUTCOMES.length)
    .optional()
    .meta({ description: 'decision.created only for these outcomes; absent means every outcome' }),
};

export const webhookSettingsSchema = z.strictObject(settings).meta({ id: 'WebhookSettings' });
export type WebhookSettings = z.infer<typeof webhookSettingsSchema>;

export const webhookUpdateSchema = z
  .strictObject({
    ...Object.fromEntries(Object.entries(settings).map(([k, v]) => [k, v.optional()])),
    enabled: z
      .boolean()
      .optional()
      .meta({ description: 'false disables the endpoint; true enables it again' }),
  } as { [K in keyof typeof settings]: z.ZodOptional<(typeof settings)[K]> } & {
    enabled: z.ZodOptional<z.ZodBoolean>;
  })
  .meta({ id: 'WebhookUpdate' });

export const webhookEndpointSchema = z
  .object({
    webhookId: serviceId(),
    ...settings,
    status: z.enum(['enabled', 'disabled']),
    disabled: z.object({ reason: text(), at: isoTime() }).optional(),
    createdAt: isoTime(),
    updatedAt: isoTime(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const webhookListSchema = z
  .object({ items: z.array(webhookEndpointSchema).max(MAX_PAGE_SIZE) })
  .meta({ id: 'WebhookList' });

export const webhookCreatedSchema = z
  .object({
    webhook: webhookEndpointSchema,
    secret: label().meta({ description: 'The signing secret, shown only in this answer' }),
  })
  .meta({ id: 'WebhookCreated' });

export const webhookSecretSchema = z
  .object({
    webhookId: serviceId(),
    secret: label().meta({ description: 'The new signing secret, shown only in this answer' }),
    previousSecretExpiresAt: isoTime().meta({ description: 'Until then both secrets sign' }),
  })
  .meta({ id: 'WebhookSecret' });

export const webhookDeletedSchema = z
  .object({ webhookId: serviceId(), deleted: z.literal(true) })
  .meta({ id: 'WebhookDeleted' });

const webhookDeliverySchema = z
  .object({
    deliveryId: serviceId(),
    webhookId: serviceId(),
    eventId: serviceId().meta({ description: 'The Webhook-Id header: the same on every attempt' }),
    type: label(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: count(),
    nextAttemptAt: isoTime().optional(),
    lastAttempt: z
      .object({
        at: isoTime(),
        /** The receiver's HTTP status. */
        status: boundedInt(100, 599).optional(),
        error: text().optional(),
        latencyMs: z.number(),
      })
      .optional(),
    createdAt: isoTime(),
  })
  .meta({ id: 'WebhookDelivery' });

export const webhookDeliveryListSchema = z
  .object({ items: z.array(webhookDeliverySchema).max(MAX_PAGE_SIZE) })
  .meta({ id: 'WebhookDeliveryList' });

export const webhookDeliveryQuerySchema = z.strictObject({
  limit: boundedInt(1, MAX_PAGE_SIZE, { coerce: true }).optional(),
});

export const webhookQueuedSchema = z
  .object({
    webhookId: serviceId(),
    deliveryId: serviceId(),
    eventId: serviceId(),
    queued: z.literal(true).meta({ description: 'The worker sends it within seconds; see its deliveries' }),
  })
  .meta({ id: 'WebhookQueued' });
