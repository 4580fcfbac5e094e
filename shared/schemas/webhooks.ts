import * as z from 'zod';
import { CONSOLE_EVENT_TYPES } from './console.ts';
import { DECISION_OUTCOMES } from './decision.ts';
import { WEBHOOK_EVENT_TYPES } from './webhook-event-types.ts';

/**
 * Webhook endpoints as merchants set them (admin CLI, management API) and as the management API
 * shows them: settings, status, deliveries. Secrets appear only in the answers that make them.
 */
export { WEBHOOK_EVENT_TYPES };

const settings = {
  url: z
    .string()
    .min(1)
    .max(2_048)
    .meta({ description: 'https in production; http and local addresses in sandbox' }),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1),
  eventTypes: z
    .array(z.enum(CONSOLE_EVENT_TYPES))
    .min(1)
    .optional()
    .meta({ description: 'Only events of these types; absent means every type' }),
  outcomes: z
    .array(z.enum(DECISION_OUTCOMES))
    .min(1)
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
    webhookId: z.string(),
    ...settings,
    status: z.enum(['enabled', 'disabled']),
    disabled: z.object({ reason: z.string(), at: z.string() }).optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const webhookListSchema = z
  .object({ items: z.array(webhookEndpointSchema) })
  .meta({ id: 'WebhookList' });

export const webhookCreatedSchema = z
  .object({
    webhook: webhookEndpointSchema,
    secret: z.string().meta({ description: 'The signing secret, shown only in this answer' }),
  })
  .meta({ id: 'WebhookCreated' });

export const webhookSecretSchema = z
  .object({
    webhookId: z.string(),
    secret: z.string().meta({ description: 'The new signing secret, shown only in this answer' }),
    previousSecretExpiresAt: z.string().meta({ description: 'Until then both secrets sign' }),
  })
  .meta({ id: 'WebhookSecret' });

export const webhookDeletedSchema = z
  .object({ webhookId: z.string(), deleted: z.literal(true) })
  .meta({ id: 'WebhookDeleted' });

export const webhookDeliverySchema = z
  .object({
    deliveryId: z.string(),
    webhookId: z.string(),
    eventId: z.string().meta({ description: 'The Webhook-Id header: the same on every attempt' }),
    type: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.int(),
    nextAttemptAt: z.string().optional(),
    lastAttempt: z
      .object({
        at: z.string(),
        status: z.int().optional(),
        error: z.string().optional(),
        latencyMs: z.number(),
      })
      .optional(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });

export const webhookDeliveryListSchema = z
  .object({ items: z.array(webhookDeliverySchema) })
  .meta({ id: 'WebhookDeliveryList' });

export const webhookDeliveryQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

export const webhookQueuedSchema = z
  .object({
    webhookId: z.string(),
    deliveryId: z.string(),
    eventId: z.string(),
    queued: z.literal(true).meta({ description: 'The worker sends it within seconds; see its deliveries' }),
  })
  .meta({ id: 'WebhookQueued' });
