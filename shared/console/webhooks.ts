import { notFound } from '../errors.ts';
import type { ManagementUseCase } from '../http/management-handler.ts';
import {
  getDelivery,
  listDeliveries,
  queueRedelivery,
  queueTestEvent,
  type WebhookDelivery,
} from '../store/webhook-deliveries.ts';
import {
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  type WebhookEndpoint,
} from '../store/webhooks.ts';
import { createWebhook, updateWebhook, webhookNotFound } from '../use-cases/webhook-endpoints.ts';

/**
 * The management API's webhooks (console scope): the same use cases as the admin CLI. A test event
 * or a redelivery is queued for the worker, which makes the request, never the API function.
 */
const DEFAULT_DELIVERIES = 20;
const idOf = (pathParameters: Readonly<Record<string, string>>) => pathParameters['webhook-id'] ?? '';

async function endpointOf(merchantId: string, webhookId: string): Promise<WebhookEndpoint> {
  const endpoint = await getWebhookEndpoint(merchantId, webhookId);
  if (!endpoint) throw webhookNotFound(webhookId);
  return endpoint;
}

/** GET /v1/webhooks */
export const listWebhooks: ManagementUseCase<'webhookList'> = async ({ caller }) => ({
  body: { items: (await listWebhookEndpoints(caller.merchantId)).map(toWire) },
});

/** POST /v1/webhooks: the secret is in this answer only. */
export const addWebhook: ManagementUseCase<'webhookCreate'> = async ({ caller, body }) => {
  const created = await createWebhook(caller.merchantId, body, Date.now());
  return { body: { webhook: toWire(created.endpoint), secret: created.secret } };
};

/** GET /v1/webhooks/{webhook-id} */
export const showWebhook: ManagementUseCase<'webhookShow'> = async ({ caller, pathParameters }) => ({
  body: toWire(await endpointOf(caller.merchantId, idOf(pathParameters))),
});

/** PATCH /v1/webhooks/{webhook-id}: settings, and `enabled` to disable or enable it again. */
export const changeWebhook: ManagementUseCase<'webhookUpdate'> = async ({ caller, pathParameters, body }) => {
  const { enabled, ...settings } = body;
  const changes = {
    ...Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)),
    ...(enabled === undefined ? {} : { status: enabled ? ('enabled' as const) : ('disabled' as const) }),
  };
  return { body: toWire(await updateWebhook(caller.merchantId, idOf(pathParameters), changes, Date.now())) };
};

/** DELETE /v1/webhooks/{webhook-id} */
export const deleteWebhook: ManagementUseCase<'webhookDelete'> = async ({ caller, pathParameters }) => {
  const webhookId = idOf(pathParameters);
  if (!(await deleteWebhookEndpoint(caller.merchantId, webhookId))) throw webhookNotFound(webhookId);
  return { body: { webhookId, deleted: true } };
};

/** POST /v1/webhooks/{webhook-id}/rotate-secret: both secrets sign for 24 h. */
export const rotateSecret: ManagementUseCase<'webhookRotateSecret'> = async ({ caller, pathParameters }) => {
  const webhookId = idOf(pathParameters);
  const rotated = await rotateWebhookSecret(caller.merchantId, webhookId, Date.now());
  if (!rotated) throw webhookNotFound(webhookId);
  return { body: { webhookId, ...rotated } };
};

/** POST /v1/webhooks/{webhook-id}/test */
export const testWebhook: ManagementUseCase<'webhookTest'> = async ({ caller, pathParameters }) => {
  const webhookId = (await endpointOf(caller.merchantId, idOf(pathParameters))).webhookId;
  const queued = await queueTestEvent(caller.merchantId, webhookId, Date.now());
  return { body: { webhookId, ...queued, queued: true } };
};

/** GET /v1/webhooks/{webhook-id}/deliveries: newest first. */
export const listWebhookDeliveries: ManagementUseCase<'webhookDeliveries'> = async ({
  caller,
  pathParameters,
  query,
}) => {
  const webhookId = (await endpointOf(caller.merchantId, idOf(pathParameters))).webhookId;
  const deliveries = await listDeliveries(caller.merchantId, webhookId, query.limit ?? DEFAULT_DELIVERIES);
  return { body: { items: deliveries.map(deliveryToWire) } };
};

/** POST /v1/webhooks/{webhook-id}/deliveries/{delivery-id}/redeliver: same event id. */
export const redeliverWebhook: ManagementUseCase<'webhookRedeliver'> = async ({ caller, pathParameters }) => {
  const webhookId = idOf(pathParameters);
  const deliveryId = pathParameters['delivery-id'] ?? '';
  const delivery = await getDelivery(caller.merchantId, webhookId, deliveryId);
  if (!delivery) throw notFound(`No delivery ${deliveryId} of webhook endpoint ${webhookId}.`);
  await queueRedelivery(delivery, Date.now());
  return { body: { webhookId, deliveryId, eventId: delivery.eventId, queued: true } };
};

function toWire(endpoint: WebhookEndpoint) {
  const { merchantId: _merchant, failingSince: _failing, ...shown } = endpoint;
  return shown;
}

function deliveryToWire(delivery: WebhookDelivery) {
  const { merchantId: _merchant, body: _body, firstDueAt: _first, nextAttemptAt, ...shown } = delivery;
  return {
    ...shown,
    ...(nextAttemptAt !== undefined ? { nextAttemptAt: new Date(nextAttemptAt).toISOString() } : {}),
  };
}
