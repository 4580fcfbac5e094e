import { readRuntimeConfig } from '../config.ts';
import { ApiError, notFound } from '../errors.ts';
import type { WebhookSettings } from '../schemas/webhooks.ts';
import { getMerchant } from '../store/merchants.ts';
import { createTestDelivery, getDelivery, redeliver } from '../store/webhook-deliveries.ts';
import {
  createWebhookEndpoint,
  type EndpointChanges,
  getWebhookEndpoint,
  updateWebhookEndpoint,
  type WebhookEndpoint,
} from '../store/webhooks.ts';
import { type UrlPolicy, urlPolicyOf, webhookUrlProblem } from '../webhooks/url-policy.ts';
import { type AttemptOutcome, attemptDelivery, type WorkerOptions } from './deliver-webhooks.ts';

/**
 * Managing a merchant's webhook endpoints (admin CLI; the management API calls the same): the URL is
 * checked against the environment's policy when saved, and the secret is shown once, at creation.
 */
const policy = (): UrlPolicy => urlPolicyOf(readRuntimeConfig().environment);

function checkUrl(url: string): void {
  const problem = webhookUrlProblem(url, policy());
  if (problem)
    throw new ApiError('unprocessable_entity', `The webhook URL is refused: ${problem}.`, { field: 'url' });
}

export async function createWebhook(
  merchantId: string,
  settings: WebhookSettings,
  now: number,
): Promise<{ webhookId: string; secret: string; endpoint: WebhookEndpoint }> {
  checkUrl(settings.url);
  if (!(await getMerchant(merchantId))) throw notFound(`No merchant ${merchantId}.`);
  const created = await createWebhookEndpoint(merchantId, settings, now);
  if ('refused' in created) throw new ApiError('unprocessable_entity', `${created.refused}.`);
  return { webhookId: created.endpoint.webhookId, secret: created.secret, endpoint: created.endpoint };
}

export async function updateWebhook(
  merchantId: string,
  webhookId: string,
  changes: EndpointChanges,
  now: number,
): Promise<WebhookEndpoint> {
  if (changes.url !== undefined) checkUrl(changes.url);
  const updated = await updateWebhookEndpoint(merchantId, webhookId, changes, now);
  if (!updated) throw webhookNotFound(webhookId);
  return updated;
}

/** Sends a `webhook.test` event to one endpoint now; a failed attempt is retried like any other. */
export async function sendTestEvent(
  merchantId: string,
  webhookId: string,
  options: WorkerOptions = {},
): Promise<AttemptOutcome | undefined> {
  if (!(await getWebhookEndpoint(merchantId, webhookId))) throw webhookNotFound(webhookId);
  const delivery = await createTestDelivery(merchantId, webhookId, (options.now ?? Date.now)());
  return attemptDelivery(delivery, options);
}

/** Sends a delivery again now (same event id), with a fresh 72 h of retries if it fails. */
export async function redeliverNow(
  merchantId: string,
  webhookId: string,
  deliveryId: string,
  options: WorkerOptions = {},
): Promise<AttemptOutcome | undefined> {
  if (!(await getDelivery(merchantId, webhookId, deliveryId))) {
    throw notFound(`No delivery ${deliveryId} of webhook endpoint ${webhookId}.`);
  }
  const delivery = await redeliver(merchantId, webhookId, deliveryId, (options.now ?? Date.now)());
  if (!delivery) throw notFound(`No delivery ${deliveryId} of webhook endpoint ${webhookId}.`);
  return attemptDelivery(delivery, options);
}

export const webhookNotFound = (webhookId: string) => notFound(`No webhook endpoint ${webhookId}.`);
