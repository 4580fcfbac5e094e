import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../client/src/webhooks.ts';
import { runWebhookWorker } from '../../shared/use-cases/deliver-webhooks.ts';
import { expectError, withTestApi } from '../support/api.ts';
import { placeOrder } from '../support/commerce.ts';
import { consoleKey } from '../support/console.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/** The management API's webhooks with a console key, through the local adapter, and the worker. */
const suite = withTestApi();
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
});

const deliver = () => runWebhookWorker({ merchantId: suite.merchantId, policy: 'permissive' });

describe('management API: /v1/webhooks (console scope)', () => {
  it('creates, lists, updates, tests, lists deliveries, redelivers, rotates and deletes', async () => {
    const { api, apiKey: eventsKey, merchantId } = suite;
    const key = await consoleKey(merchantId);
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    const request = (method: string, path: string, body?: unknown) =>
      api.request(method, path, {
        apiKey: key,
        ...(body !== undefined ? { rawBody: JSON.stringify(body) } : {}),
      });

    const created = await request('POST', '/v1/webhooks', {
      url: receiver.url,
      events: ['decision.created'],
      outcomes: ['APPROVE'],
    });
    expect(created.status).toBe(200);
    const { webhook, secret } = created.body;
    expect(webhook).toMatchObject({ url: receiver.url, status: 'enabled', outcomes: ['APPROVE'] });
    const listed = await request('GET', '/v1/webhooks');
    expect(listed.body.items.map((w: { webhookId: string }) => w.webhookId)).toEqual([webhook.webhookId]);
    expect(listed.text).not.toContain(secret);

    await placeOrder(api, eventsKey);
    await deliver();
    const [first] = receiver.received;
    await expect(
      verifyWebhook(first!.body, first!.headers as Record<string, string>, secret),
    ).resolves.toMatchObject({
      type: 'decision.created',
    });

    const tested = await request('POST', `/v1/webhooks/${webhook.webhookId}/test`);
    expect(tested.body).toMatchObject({ queued: true, webhookId: webhook.webhookId });
    await deliver();
    expect(JSON.parse(receiver.received[1]!.body).type).toBe('webhook.test');

    const deliveries = await request('GET', `/v1/webhooks/${webhook.webhookId}/deliveries?limit=10`);
    expect(deliveries.body.items).toHaveLength(2);
    expect(deliveries.body.items[0]).toMatchObject({
      deliveryId: tested.body.deliveryId,
      status: 'delivered',
      attempts: 1,
      lastAttempt: { status: 200 },
    });
    const redelivered = await request(
      'POST',
      `/v1/webhooks/${webhook.webhookId}/deliveries/${tested.body.deliveryId}/redeliver`,
    );
    expect(redelivered.body).toMatchObject({ queued: true, eventId: tested.body.eventId });
    await deliver();
    expect(receiver.received[2]?.headers['webhook-id']).toBe(tested.body.eventId);

    const patched = await request('PATCH', `/v1/webhooks/${webhook.webhookId}`, { enabled: false });
    expect(patched.body).toMatchObject({
      status: 'disabled',
      disabled: { reason: 'disabled by the merchant' },
    });
    const rotated = await request('POST', `/v1/webhooks/${webhook.webhookId}/rotate-secret`);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(secret);
    expect((await request('DELETE', `/v1/webhooks/${webhook.webhookId}`)).body).toEqual({
      webhookId: webhook.webhookId,
      deleted: true,
    });
    expectError(await request('GET', `/v1/webhooks/${webhook.webhookId}`), 404, 'not_found');
  });

  it('refuses an events key, a bad URL and unknown fields', async () => {
    const { api, apiKey: eventsKey, merchantId } = suite;
    expectError(await api.request('GET', '/v1/webhooks', { apiKey: eventsKey }), 403, 'forbidden');
    const key = await consoleKey(merchantId);
    const post = (body: unknown) =>
      api.request('POST', '/v1/webhooks', { apiKey: key, rawBody: JSON.stringify(body) });
    expectError(
      await post({ url: 'ftp://x.example', events: ['decision.created'] }),
      422,
      'unprocessable_entity',
      'url',
    );
    expectError(
      await post({ url: 'https://x.example', events: ['order.paid'] }),
      422,
      'unprocessable_entity',
    );
    expectError(
      await post({ url: 'https://x.example', events: ['decision.created'], extra: 1 }),
      422,
      'unknown_field',
    );
  });
});
