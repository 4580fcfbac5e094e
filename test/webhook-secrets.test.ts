import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../client/src/webhooks.ts';
import { batchGetItems } from '../shared/store/batch-get.ts';
import { webhookKeys } from '../shared/store/keys.ts';
import { runWebhookWorker } from '../shared/use-cases/deliver-webhooks.ts';
import { openSecret, type SealedSecret } from '../shared/webhooks/secret-box.ts';
import { withTestApi } from './support/api.ts';
import { placeOrder } from './support/commerce.ts';
import { consoleKey } from './support/console.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';

/**
 * Webhook signing secrets are stored sealed (envelope encryption under the environment's key;
 * locally the key file WEBHOOK_SECRETS_KEY_FILE names), shown once, and opened by the worker to sign.
 */
const suite = withTestApi();
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  for (const receiver of receivers) await receiver.close();
});

async function storedEndpoint(webhookId: string) {
  const [item] = [...(await batchGetItems([webhookKeys.endpoint(suite.merchantId, webhookId)])).values()];
  return item as { secrets: { sealed?: SealedSecret; secret?: string; expiresAt?: number }[] };
}

describe('webhook signing secrets at rest', () => {
  it('are stored sealed, never in plain text, and still sign what the worker sends', async () => {
    const { api, apiKey, merchantId } = suite;
    const key = await consoleKey(merchantId);
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    const request = (method: string, path: string, body?: unknown) =>
      api.request(method, path, { apiKey: key, ...(body ? { rawBody: JSON.stringify(body) } : {}) });
    const created = await request('POST', '/v1/webhooks', {
      url: receiver.url,
      events: ['decision.created'],
    });
    expect(created.status).toBe(200);
    const { webhook, secret } = created.body as { webhook: { webhookId: string }; secret: string };

    const stored = await storedEndpoint(webhook.webhookId);
    const storedText = JSON.stringify(stored);
    expect(storedText).not.toContain(secret);
    expect(storedText).not.toContain(secret.replace(/^whsec_/, ''));
    expect(stored.secrets).toHaveLength(1);
    expect(stored.secrets[0]).toEqual({ sealed: { key: expect.any(String), box: expect.any(String) } });
    // The data key is stored only wrapped by the environment's key, which is not in the table.
    const masterKey = readFileSync(process.env.WEBHOOK_SECRETS_KEY_FILE!);
    expect(masterKey).toHaveLength(32);
    expect(storedText).not.toContain(masterKey.toString('base64'));

    // Bound to its endpoint: the same box does not open as another endpoint's.
    const sealed = stored.secrets[0]!.sealed!;
    await expect(openSecret(sealed, { merchantId, webhookId: webhook.webhookId })).resolves.toBe(secret);
    await expect(openSecret(sealed, { merchantId, webhookId: 'wh_someoneelse' })).rejects.toThrow();

    await placeOrder(api, apiKey);
    await runWebhookWorker({ merchantId, policy: 'permissive' });
    const [first] = receiver.received;
    await expect(
      verifyWebhook(first!.body, first!.headers as Record<string, string>, secret),
    ).resolves.toMatchObject({ type: 'decision.created' });

    // A rotation seals the new secret and keeps the previous one as it was stored, for 24 h.
    const rotated = await request('POST', `/v1/webhooks/${webhook.webhookId}/rotate-secret`);
    const afterRotation = await storedEndpoint(webhook.webhookId);
    expect(JSON.stringify(afterRotation)).not.toContain(rotated.body.secret);
    expect(afterRotation.secrets.map((s) => Object.keys(s).sort())).toEqual([
      ['sealed'],
      ['expiresAt', 'sealed'],
    ]);
    expect(afterRotation.secrets[1]!.sealed).toEqual(sealed);
  });
});
