import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../client/src/webhooks.ts';
import { keys } from '../shared/store/keys.ts';
import { reviewIdFor } from '../shared/store/reviews.ts';
import { listDeliveries, pendingOutboxEvents } from '../shared/store/webhook-deliveries.ts';
import { createWebhookEndpoint, getWebhookEndpoint, rotateWebhookSecret } from '../shared/store/webhooks.ts';
import { runWebhookWorker } from '../shared/use-cases/deliver-webhooks.ts';
import { evaluateReturn } from '../shared/use-cases/evaluate-return.ts';
import { placeOrder as placeOrderUseCase } from '../shared/use-cases/place-order.ts';
import { resolveReview } from '../shared/use-cases/resolve-review.ts';
import { allowedLookup, postWebhook } from '../shared/webhooks/post.ts';
import { RETRY_WINDOW_MS } from '../shared/webhooks/schedule.ts';
import { webhookHeaders } from '../shared/webhooks/signing.ts';
import { webhookUrlProblem } from '../shared/webhooks/url-policy.ts';
import { admin } from './support/admin.ts';
import { newMerchant, startTestApi, type TestApi, waitForKeyCacheExpiry } from './support/api.ts';
import { placeOrder, returnBody } from './support/commerce.ts';
import { consoleKey } from './support/console.ts';
import { orderBody, uid } from './support/fixtures.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';

let api: TestApi;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api.close();
  for (const receiver of receivers) await receiver.close();
});

async function merchantWithEndpoint(
  settings: Partial<Parameters<typeof createWebhookEndpoint>[1]> = {},
  answers: number[] = [],
) {
  const merchant = await newMerchant();
  const receiver = await startWebhookReceiver(answers);
  receivers.push(receiver);
  const created = await createWebhookEndpoint(
    merchant.merchantId,
    { url: receiver.url, events: ['decision.created', 'review.created', 'review.resolved'], ...settings },
    Date.now(),
  );
  if ('refused' in created) throw new Error(created.refused);
  return { ...merchant, receiver, webhookId: created.endpoint.webhookId, secret: created.secret };
}

/** Runs the worker for one merchant, as `npm start`'s poller and the AWS worker do. */
const deliver = (merchantId: string, now = Date.now()) =>
  runWebhookWorker({ merchantId, now: () => now, random: () => 0.5, policy: 'permissive' });

/** An order of one unit returned twice: the second return is scored REVIEW. */
async function reviewedReturn(merchant: { apiKey: string }) {
  const order = await placeOrder(api, merchant.apiKey, { items: [{ sku: uid('sku'), quantity: 1 }] });
  await api.post('/v1/return', returnBody(order), { apiKey: merchant.apiKey });
  const second = await api.post('/v1/return', returnBody(order), { apiKey: merchant.apiKey });
  expect(second.body.returnedLineItems[0].decision).toBe('REVIEW');
  return second;
}

const eventsOf = (receiver: WebhookReceiver) => receiver.received.map((r) => JSON.parse(r.body));

describe('webhooks with a local receiver', () => {
  it('a REVIEW return delivers decision.created and review.created, signed; resolving it delivers review.resolved', async () => {
    const merchant = await merchantWithEndpoint({ eventTypes: ['return'] });
    const answered = await reviewedReturn(merchant);
    await deliver(merchant.merchantId);

    const reviewEvents = eventsOf(merchant.receiver).filter(
      (e) => e.data.providerReturnId === answered.body.providerReturnId,
    );
    expect(reviewEvents.map((e) => e.type).sort()).toEqual(['decision.created', 'review.created']);
    for (const request of merchant.receiver.received) {
      const event = await verifyWebhook(
        request.body,
        request.headers as Record<string, string>,
        merchant.secret,
        {
          toleranceSeconds: 300,
        },
      );
      expect(request.headers['webhook-id']).toBe(event.id);
      expect(request.headers['content-type']).toBe('application/json');
    }
    const created = reviewEvents.find((e) => e.type === 'decision.created');
    // The same decision objects and ids as the API response.
    expect(created).toMatchObject({ apiVersion: 'v1', data: { eventType: 'return', ...answered.body } });
    const review = reviewEvents.find((e) => e.type === 'review.created');
    const reviewId = reviewIdFor('return', keys.return(merchant.merchantId, answered.body.providerReturnId));
    expect(review.data.review).toMatchObject({
      reviewId,
      status: 'open',
      providerId: answered.body.providerReturnId,
    });
    expect(review.data.review.identities).toBeUndefined();

    const before = merchant.receiver.received.length;
    await resolveReview({ merchantId: merchant.merchantId, reviewId, outcome: 'abuse', now: Date.now() });
    await deliver(merchant.merchantId);
    const resolved = eventsOf(merchant.receiver).slice(before);
    expect(resolved).toEqual([
      expect.objectContaining({
        type: 'review.resolved',
        data: expect.objectContaining({
          review: expect.objectContaining({
            reviewId,
            status: 'resolved',
            resolution: expect.objectContaining({ outcome: 'abuse' }),
          }),
        }),
      }),
    ]);
  });

  it('review.resolved carries the reviewer’s note only once the merchant opts in (admin CLI)', async () => {
    const merchant = await merchantWithEndpoint({ eventTypes: ['return'] });
    const key = await consoleKey(merchant.merchantId);
    const resolveWithNote = async (note: string) => {
      const answered = await reviewedReturn(merchant);
      const reviewId = reviewIdFor(
        'return',
        keys.return(merchant.merchantId, answered.body.providerReturnId),
      );
      const resolved = await api.request('POST', `/v1/reviews/${reviewId}/resolve`, {
        apiKey: key,
        rawBody: JSON.stringify({ outcome: 'legitimate', note }),
      });
      expect(resolved.status, resolved.text).toBe(200);
      await deliver(merchant.merchantId);
      const sent = eventsOf(merchant.receiver).find(
        (e) => e.type === 'review.resolved' && e.data.review.reviewId === reviewId,
      );
      return sent.data.review.resolution;
    };
    const withoutOptIn = await resolveWithNote('the customer called us');
    expect(withoutOptIn.outcome).toBe('legitimate');
    expect(withoutOptIn.note).toBeUndefined();

    const optIn = await admin(
      'merchant',
      'update',
      '--merchant',
      merchant.merchantId,
      '--webhook-review-notes',
      'on',
    );
    expect(optIn.code, optIn.stderr).toBe(0);
    await waitForKeyCacheExpiry();
    expect((await resolveWithNote('the customer called again')).note).toBe('the customer called again');
  });

  it('filters decision.created by event type and outcome, and writes nothing for events no endpoint wants', async () => {
    const merchant = await merchantWithEndpoint({
      events: ['decision.created'],
      outcomes: ['DECLINE', 'REVIEW'],
    });
    await placeOrder(api, merchant.apiKey); // APPROVE
    expect(await pendingOutboxEvents(10, merchant.merchantId)).toEqual([]);
    await reviewedReturn(merchant);
    await deliver(merchant.merchantId);
    expect(eventsOf(merchant.receiver).map((e) => [e.type, e.data.eventType])).toEqual([
      ['decision.created', 'return'],
    ]);
  });

  it('retries a receiver answering 500 twice then 200: three attempts of one logical event', async () => {
    const merchant = await merchantWithEndpoint({ events: ['decision.created'] }, [500, 500]);
    await placeOrder(api, merchant.apiKey);
    const start = Date.now();
    await deliver(merchant.merchantId, start);
    // Not due yet: a second pass at the same instant sends nothing.
    await deliver(merchant.merchantId, start);
    expect(merchant.receiver.received).toHaveLength(1);
    await deliver(merchant.merchantId, start + 60_000);
    await deliver(merchant.merchantId, start + 10 * 60_000);
    await deliver(merchant.merchantId, start + 60 * 60_000);
    const ids = merchant.receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(1);
    const [delivery] = await listDeliveries(merchant.merchantId, merchant.webhookId, 10);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, lastAttempt: { status: 200 } });
  });

  it('gives a delivery up after 72 h of failures and disables the endpoint', async () => {
    const merchant = await merchantWithEndpoint({ events: ['decision.created'] }, Array(100).fill(503));
    await placeOrder(api, merchant.apiKey);
    let now = Date.now();
    for (let pass = 0; pass < 60; pass++, now += 3 * 3_600_000) await deliver(merchant.merchantId, now);
    const [delivery] = await listDeliveries(merchant.merchantId, merchant.webhookId, 10);
    expect(delivery?.status).toBe('failed');
    expect(delivery?.lastAttempt?.error).toContain('HTTP 503');
    const endpoint = await getWebhookEndpoint(merchant.merchantId, merchant.webhookId);
    expect(endpoint).toMatchObject({
      status: 'disabled',
      disabled: { reason: 'every delivery failed for 72 hours' },
    });
    expect(now - Date.now()).toBeGreaterThan(RETRY_WINDOW_MS);
  });

  it('sends nothing for imported events (notify: false), through the use cases directly', async () => {
    const merchant = await merchantWithEndpoint();
    const order = orderBody({ items: [{ sku: uid('sku'), quantity: 1 }] });
    const call = {
      endpoint: 'order' as const,
      merchantId: merchant.merchantId,
      pathParameters: {},
      notify: false,
    };
    await placeOrderUseCase({ ...call, body: order as never });
    const returnCall = { ...call, endpoint: 'return' as const };
    await evaluateReturn({ ...returnCall, body: returnBody(order) as never });
    const second = await evaluateReturn({ ...returnCall, body: returnBody(order) as never });
    expect(second.response.returnedLineItems[0]?.decision).toBe('REVIEW');
    const reviewId = reviewIdFor(
      'return',
      keys.return(merchant.merchantId, second.response.providerReturnId),
    );
    await resolveReview({
      merchantId: merchant.merchantId,
      reviewId,
      outcome: 'legitimate',
      now: Date.now(),
      notify: false,
    });
    expect(await pendingOutboxEvents(10, merchant.merchantId)).toEqual([]);
    await deliver(merchant.merchantId);
    expect(merchant.receiver.received).toEqual([]);
  });
});

describe('verifyWebhook (client package)', () => {
  const body = JSON.stringify({
    id: 'evt_1',
    type: 'webhook.test',
    createdAt: '',
    apiVersion: 'v1',
    data: {},
  });
  const now = Date.UTC(2026, 10, 23);

  it('accepts the signature of the right secret and rejects a wrong secret', async () => {
    const headers = webhookHeaders('evt_1', body, ['whsec_right'], now);
    await expect(verifyWebhook(body, headers, 'whsec_right', { now })).resolves.toMatchObject({
      id: 'evt_1',
    });
    await expect(verifyWebhook(body, headers, 'whsec_wrong', { now })).rejects.toThrow(
      WebhookVerificationError,
    );
    await expect(verifyWebhook(`${body} `, headers, 'whsec_right', { now })).rejects.toThrow('no signature');
  });

  it('rejects a timestamp outside the tolerance', async () => {
    const headers = webhookHeaders('evt_1', body, ['whsec_right'], now - 301_000);
    await expect(verifyWebhook(body, headers, 'whsec_right', { toleranceSeconds: 300, now })).rejects.toThrow(
      'tolerance',
    );
  });

  it('accepts either secret during a rotation (two v1 values)', async () => {
    const merchant = await merchantWithEndpoint();
    const rotated = await rotateWebhookSecret(merchant.merchantId, merchant.webhookId, Date.now());
    await placeOrder(api, merchant.apiKey);
    await deliver(merchant.merchantId);
    const [request] = merchant.receiver.received;
    expect(String(request?.headers['webhook-signature']).match(/v1=/g)).toHaveLength(2);
    for (const secret of [merchant.secret, rotated!.secret]) {
      await expect(
        verifyWebhook(request!.body, request!.headers as Record<string, string>, secret),
      ).resolves.toBeDefined();
    }
  });
});

describe('where webhooks may go (SSRF)', () => {
  it('refuses loopback, private, link-local and metadata addresses and http in production, allows them in sandbox', () => {
    for (const url of [
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://172.20.0.1/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[fd00:ec2::254]/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'https://localhost/hook',
      'https://localhost./hook',
      'https://metadata.google.internal/hook',
      'http://hooks.example.com/hook',
    ]) {
      expect(webhookUrlProblem(url, 'production'), url).toBeDefined();
      expect(webhookUrlProblem(url.replace('https:', 'http:'), 'permissive'), url).toBeUndefined();
    }
    expect(webhookUrlProblem('https://hooks.example.com/abuse', 'production')).toBeUndefined();
    expect(webhookUrlProblem('ftp://hooks.example.com/', 'permissive')).toBeDefined();
  });

  it('checks the address DNS gives at delivery: a name resolving to loopback is refused', async () => {
    const error = await new Promise<Error | null>((resolve) =>
      allowedLookup('localhost', {}, (failure) => resolve(failure as Error | null)),
    );
    expect(error?.message).toContain('forbidden address');
    const result = await postWebhook({
      url: 'https://localhost/hook',
      body: '{}',
      headers: {},
      policy: 'production',
      timeoutMs: 1_000,
    });
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('loopback') });
  });

  it('delivers nothing to a private address under the production policy, and records why', async () => {
    const merchant = await merchantWithEndpoint({ events: ['decision.created'] });
    await placeOrder(api, merchant.apiKey);
    await runWebhookWorker({ merchantId: merchant.merchantId, policy: 'production' });
    expect(merchant.receiver.received).toEqual([]);
    const [delivery] = await listDeliveries(merchant.merchantId, merchant.webhookId, 10);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
    expect(delivery?.lastAttempt?.error).toContain('https');
  });
});

describe('admin CLI: webhooks', () => {
  it('creates (secret shown once), lists, tests, lists deliveries, redelivers, rotates and disables', async () => {
    const merchant = await newMerchant();
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);
    const created = await admin(
      'webhooks',
      'create',
      '--merchant',
      merchant.merchantId,
      '--url',
      receiver.url,
      '--events',
      'decision.created,review.created',
      '--outcomes',
      'DECLINE,REVIEW',
    );
    expect(created.code).toBe(0);
    const { webhookId, secret } = JSON.parse(created.stdout);
    expect(Object.keys(JSON.parse(created.stdout))).toEqual(['webhookId', 'secret']);
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);

    const listed = await admin('webhooks', 'list', '--merchant', merchant.merchantId);
    expect(listed.stdout).not.toContain(secret);
    expect(JSON.parse(listed.stdout).webhooks).toEqual([
      expect.objectContaining({
        webhookId,
        url: receiver.url,
        status: 'enabled',
        outcomes: ['DECLINE', 'REVIEW'],
      }),
    ]);

    const tested = await admin('webhooks', 'test', '--merchant', merchant.merchantId, '--webhook', webhookId);
    expect(JSON.parse(tested.stdout)).toMatchObject({ delivered: true, status: 200 });
    const [request] = receiver.received;
    await expect(
      verifyWebhook(request!.body, request!.headers as Record<string, string>, secret),
    ).resolves.toMatchObject({
      type: 'webhook.test',
    });

    const deliveries = JSON.parse(
      (await admin('webhooks', 'deliveries', '--merchant', merchant.merchantId, '--webhook', webhookId))
        .stdout,
    );
    expect(deliveries.deliveries).toEqual([
      expect.objectContaining({
        status: 'delivered',
        attempts: 1,
        lastAttempt: expect.objectContaining({ status: 200 }),
      }),
    ]);
    const deliveryId = deliveries.deliveries[0].deliveryId;
    const again = await admin(
      'webhooks',
      'redeliver',
      '--merchant',
      merchant.merchantId,
      '--webhook',
      webhookId,
      '--delivery',
      deliveryId,
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ delivered: true, deliveryId });
    expect(receiver.received[1]?.headers['webhook-id']).toBe(request?.headers['webhook-id']);

    const rotated = JSON.parse(
      (await admin('webhooks', 'rotate', '--merchant', merchant.merchantId, '--webhook', webhookId)).stdout,
    );
    expect(rotated.secret).not.toBe(secret);
    const disabled = await admin(
      'webhooks',
      'disable',
      '--merchant',
      merchant.merchantId,
      '--webhook',
      webhookId,
    );
    expect(JSON.parse(disabled.stdout)).toMatchObject({
      status: 'disabled',
      disabled: { reason: 'disabled by the merchant' },
    });
    await placeOrder(api, merchant.apiKey);
    expect(await pendingOutboxEvents(10, merchant.merchantId)).toEqual([]);
  });

  it('refuses bad arguments and unknown endpoints', async () => {
    const merchant = await newMerchant();
    const badEvent = await admin(
      'webhooks',
      'create',
      '--merchant',
      merchant.merchantId,
      '--url',
      'https://x.example',
      '--events',
      'order.paid',
    );
    expect(badEvent.code).toBe(2);
    expect(badEvent.stderr).toContain('--events');
    const badUrl = await admin(
      'webhooks',
      'create',
      '--merchant',
      merchant.merchantId,
      '--url',
      'ftp://x.example',
      '--events',
      'decision.created',
    );
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('The webhook URL is refused');
    const missing = await admin(
      'webhooks',
      'test',
      '--merchant',
      merchant.merchantId,
      '--webhook',
      'wh_missing',
    );
    expect(missing.code).toBe(1);
  });
});
