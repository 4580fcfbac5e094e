import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWebhookPoller } from '../local/webhook-poller.ts';
import { createWebhookEndpoint } from '../shared/store/webhooks.ts';
import { newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { orderBody } from './support/fixtures.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';

/**
 * One receiver that never answers must not hold up another (issue 34.2). Orders go through the local
 * server, and `npm start`'s worker delivers them: the outbox fanned out onto the local delivery
 * queue, every attempt made by the worker Lambda's queue handler. Each order's decision.created goes
 * to both endpoints; the one that answers at once gets every event within seconds, while the other's
 * attempts are still waiting on their 10 s timeout.
 */
const ORDERS = 20;

let api: TestApi;
let fast: WebhookReceiver;
let hanging: { url: string; requests: IncomingMessage[]; close: () => Promise<void> };
let worker: ReturnType<typeof startWebhookPoller>;

beforeAll(async () => {
  api = await startTestApi();
  fast = await startWebhookReceiver();
  const requests: IncomingMessage[] = [];
  const server = createServer((request) => void requests.push(request));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hanging = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
});
afterAll(async () => {
  // Closing the hanging receiver ends the attempts waiting on it, so the worker stops at once.
  await hanging.close();
  await worker?.stop();
  await fast.close();
  await api.close();
});

describe('a receiver that never answers', () => {
  it('delays only its own deliveries: the other endpoint receives every event within seconds', async () => {
    const { merchantId, apiKey } = await newMerchant();
    const now = Date.now();
    await createWebhookEndpoint(merchantId, { url: hanging.url, events: ['decision.created'] }, now);
    await createWebhookEndpoint(merchantId, { url: fast.url, events: ['decision.created'] }, now);
    worker = startWebhookPoller({ intervalMs: 100, log: () => {}, worker: { merchantId } });

    for (let i = 0; i < ORDERS; i++) {
      expect((await api.post('/v1/order', orderBody(), { apiKey })).status).toBe(200);
    }
    await vi.waitFor(() => expect(fast.received).toHaveLength(ORDERS), { timeout: 5_000, interval: 50 });
    // Every event once, and the hanging receiver was being called all along, not skipped.
    expect(new Set(fast.received.map((r) => r.headers['webhook-id'])).size).toBe(ORDERS);
    expect(hanging.requests.length).toBeGreaterThan(0);
  });
});
