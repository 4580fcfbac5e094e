import type * as z from 'zod';
import { ApiError } from '../../shared/errors.ts';
import { WEBHOOK_EVENT_TYPES } from '../../shared/schemas/webhook-event-types.ts';
import { webhookSettingsSchema } from '../../shared/schemas/webhooks.ts';
import { listDeliveries } from '../../shared/store/webhook-deliveries.ts';
import { listWebhookEndpoints, rotateWebhookSecret } from '../../shared/store/webhooks.ts';
import type { AttemptOutcome } from '../../shared/use-cases/deliver-webhooks.ts';
import {
  createWebhook,
  redeliverNow,
  sendTestEvent,
  updateWebhook,
  webhookNotFound,
} from '../../shared/use-cases/webhook-endpoints.ts';
import { type AdminCommand, CommandError, positiveInteger, requireFlag, UsageError } from '../command.ts';

const DEFAULT_DELIVERIES = 20;
const list = (value: string | boolean | undefined) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : undefined;

/** Settings from flags, checked by the same schema the management API uses. */
function settingsFrom<T>(schema: z.ZodType<T>, flags: Record<string, string | boolean | undefined>): T {
  const raw = Object.fromEntries(
    Object.entries({
      url: flags.url,
      events: list(flags.events),
      eventTypes: list(flags['event-types']),
      outcomes: list(flags.outcomes),
    }).filter(([, v]) => v !== undefined),
  );
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0]);
    throw new UsageError(`--${field === 'eventTypes' ? 'event-types' : field}: ${issue?.message}`);
  }
  return parsed.data;
}

/** API errors of the shared use cases, as the CLI reports them (exit 1). */
async function reported<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ApiError) throw new CommandError(error.message);
    throw error;
  }
}

const attemptSummary = (outcome: AttemptOutcome | undefined) =>
  outcome
    ? {
        deliveryId: outcome.delivery.deliveryId,
        eventId: outcome.delivery.eventId,
        delivered: outcome.result.ok,
        ...(outcome.result.status !== undefined ? { status: outcome.result.status } : {}),
        ...(outcome.result.ok ? {} : { error: outcome.result.error }),
        next: outcome.next,
      }
    : { delivered: false, error: 'another worker attempted this delivery at the same time' };

const settingsOptions = {
  merchant: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  'event-types': { type: 'string' },
  outcomes: { type: 'string' },
} as const;

/** Webhook endpoints: create (secret shown once), list, update, disable, rotate, test, deliveries. */
export const webhookCommands: AdminCommand[] = [
  {
    words: ['webhooks', 'create'],
    usage: `webhooks create --merchant ID --url URL --events ${WEBHOOK_EVENT_TYPES.join(',')} [--event-types order,return] [--outcomes DECLINE,REVIEW]`,
    options: settingsOptions,
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      requireFlag(flags, 'url');
      requireFlag(flags, 'events');
      const created = await reported(() =>
        createWebhook(merchantId, settingsFrom(webhookSettingsSchema, flags), Date.now()),
      );
      return { webhookId: created.webhookId, secret: created.secret };
    },
  },
  {
    words: ['webhooks', 'list'],
    usage: 'webhooks list --merchant ID',
    options: { merchant: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const webhooks = await listWebhookEndpoints(merchantId);
      return { merchantId, count: webhooks.length, webhooks };
    },
  },
  {
    words: ['webhooks', 'update'],
    usage:
      'webhooks update --merchant ID --webhook ID [--url URL] [--events E,...] [--event-types T,...] [--outcomes O,...] [--enable]',
    options: { ...settingsOptions, webhook: { type: 'string' }, enable: { type: 'boolean' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const webhookId = requireFlag(flags, 'webhook');
      const changes = {
        ...settingsFrom(webhookSettingsSchema.partial(), flags),
        ...(flags.enable === true ? { status: 'enabled' as const } : {}),
      };
      if (Object.keys(changes).length === 0) throw new UsageError('nothing to change');
      return reported(() => updateWebhook(merchantId, webhookId, changes, Date.now()));
    },
  },
  {
    words: ['webhooks', 'disable'],
    usage: 'webhooks disable --merchant ID --webhook ID',
    options: { merchant: { type: 'string' }, webhook: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const webhookId = requireFlag(flags, 'webhook');
      return reported(() => updateWebhook(merchantId, webhookId, { status: 'disabled' }, Date.now()));
    },
  },
  {
    words: ['webhooks', 'rotate'],
    usage: 'webhooks rotate --merchant ID --webhook ID',
    options: { merchant: { type: 'string' }, webhook: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const webhookId = requireFlag(flags, 'webhook');
      const rotated = await rotateWebhookSecret(merchantId, webhookId, Date.now());
      if (!rotated) throw new CommandError(webhookNotFound(webhookId).message);
      return { webhookId, ...rotated };
    },
  },
  {
    words: ['webhooks', 'test'],
    usage: 'webhooks test --merchant ID --webhook ID',
    options: { merchant: { type: 'string' }, webhook: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const webhookId = requireFlag(flags, 'webhook');
      return attemptSummary(await reported(() => sendTestEvent(merchantId, webhookId)));
    },
  },
  {
    words: ['webhooks', 'deliveries'],
    usage: `webhooks deliveries --merchant ID --webhook ID [--limit ${DEFAULT_DELIVERIES}]`,
    options: { merchant: { type: 'string' }, webhook: { type: 'string' }, limit: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const webhookId = requireFlag(flags, 'webhook');
      const limit = positiveInteger(flags, 'limit') ?? DEFAULT_DELIVERIES;
      const deliveries = await listDeliveries(merchantId, webhookId, limit);
      // The body is the event as sent; the listing shows what happened to it.
      return {
        webhookId,
        count: deliveries.length,
        deliveries: deliveries.map(({ body: _body, ...d }) => d),
      };
    },
  },
  {
    words: ['webhooks', 'redeliver'],
    usage: 'webhooks redeliver --merchant ID --webhook ID --delivery ID',
    options: { merchant: { type: 'string' }, webhook: { type: 'string' }, delivery: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const webhookId = requireFlag(flags, 'webhook');
      const deliveryId = requireFlag(flags, 'delivery');
      return attemptSummary(await reported(() => redeliverNow(merchantId, webhookId, deliveryId)));
    },
  },
];
