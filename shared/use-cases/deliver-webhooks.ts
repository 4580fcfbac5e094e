import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { readRuntimeConfig } from '../config.ts';
import { logger, metrics } from '../observability.ts';
import {
  dueDeliveries,
  fanOutOutboxEvent,
  type OutboxEvent,
  pendingOutboxEvents,
  recordAttempt,
  type WebhookDelivery,
} from '../store/webhook-deliveries.ts';
import { deliveryTarget, recordEndpointHealth } from '../store/webhooks.ts';
import { postWebhook } from '../webhooks/post.ts';
import { type AttemptResult, DELIVERY_TIMEOUT_MS, type NextStep, nextStep } from '../webhooks/schedule.ts';
import { webhookHeaders } from '../webhooks/signing.ts';
import { type UrlPolicy, urlPolicyOf } from '../webhooks/url-policy.ts';

/**
 * The delivery worker: the same code runs in the AWS worker Lambda (fed by the table's stream and the
 * delivery queue) and in `npm start` (polling the outbox, the local delivery queue). Clock, randomness
 * and URL policy are injectable, so tests play 72 hours of retries in milliseconds.
 */
export interface WorkerOptions {
  now?: () => number;
  random?: () => number;
  policy?: UrlPolicy;
  timeoutMs?: number;
  /** Attempts in flight at once per endpoint. */
  concurrencyPerEndpoint?: number;
  /** Only this merchant's work (the admin CLI's `webhooks test`, tests). */
  merchantId?: string;
  /** Told of every attempt recorded (the local worker's log). */
  onAttempt?: (outcome: AttemptOutcome) => void;
}

/** In flight at once per endpoint: enough to keep up, few enough not to flood a receiver. */
const DEFAULT_CONCURRENCY_PER_ENDPOINT = 4;
const BATCH = 50;

export interface AttemptOutcome {
  delivery: WebhookDelivery;
  result: AttemptResult;
  next: NextStep;
  endpointDisabled: boolean;
}

const clockOf = (options: WorkerOptions) => options.now ?? Date.now;

/** Turns outbox items into deliveries. Returns the deliveries made. */
export async function fanOut(events: readonly OutboxEvent[], options: WorkerOptions = {}) {
  const made: WebhookDelivery[] = [];
  for (const event of events) made.push(...(await fanOutOutboxEvent(event, clockOf(options)())));
  return made;
}

/**
 * One pass over the table's queues, every due delivery attempted before it returns: how tests drive
 * delivery with an injected clock (72 hours of retries in milliseconds). The worker Lambda and
 * `npm start` deliver through the delivery queue instead (webhook-worker-events.ts).
 */
export async function runWebhookWorker(options: WorkerOptions = {}): Promise<AttemptOutcome[]> {
  await fanOut(await pendingOutboxEvents(BATCH, options.merchantId), options);
  const due = await dueDeliveries(clockOf(options)(), BATCH, options.merchantId);
  const { outcomes, failed } = await attemptDeliveries(due, options);
  if (failed.length > 0) throw new Error(`${failed.length} deliveries could not be attempted`);
  return outcomes;
}

/**
 * Attempts deliveries concurrently across endpoints, at most `concurrencyPerEndpoint` at once to
 * any one endpoint, so one slow receiver neither floods itself nor holds the others back. A delivery
 * whose attempt could not be recorded (the table failed) is returned in `failed`; the others go on.
 */
export async function attemptDeliveries(
  deliveries: readonly WebhookDelivery[],
  options: WorkerOptions = {},
): Promise<{ outcomes: AttemptOutcome[]; failed: WebhookDelivery[] }> {
  const limit = options.concurrencyPerEndpoint ?? DEFAULT_CONCURRENCY_PER_ENDPOINT;
  const byEndpoint = Map.groupBy(deliveries, (d) => `${d.merchantId}/${d.webhookId}`);
  const outcomes: AttemptOutcome[] = [];
  const failed: WebhookDelivery[] = [];
  await Promise.all(
    [...byEndpoint.values()].map(async (queue) => {
      const next = [...queue];
      const lane = async () => {
        for (let d = next.shift(); d; d = next.shift()) {
          try {
            const outcome = await attemptDelivery(d, options);
            if (!outcome) continue;
            outcomes.push(outcome);
            options.onAttempt?.(outcome);
          } catch (error) {
            logger.error('Webhook attempt failed', { deliveryId: d.deliveryId, error });
            failed.push(d);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(limit, next.length) }, lane));
    }),
  );
  return { outcomes, failed };
}

/**
 * One signed POST of a delivery, and its record: delivered, due again after a backoff, or failed
 * after 72 h. An endpoint gone or disabled fails the delivery without a request. Undefined when
 * another worker recorded an attempt of this delivery first.
 */
export async function attemptDelivery(
  delivery: WebhookDelivery,
  options: WorkerOptions = {},
): Promise<AttemptOutcome | undefined> {
  const now = clockOf(options);
  const startedAt = now();
  const target = await deliveryTarget(delivery.merchantId, delivery.webhookId, startedAt);
  const started = performance.now();
  const result: AttemptResult =
    target?.endpoint.status === 'enabled'
      ? await postWebhook({
          url: target.endpoint.url,
          body: delivery.body,
          headers: webhookHeaders(delivery.eventId, delivery.body, target.secrets, startedAt),
          policy: options.policy ?? urlPolicyOf(readRuntimeConfig().environment),
          timeoutMs: options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
        })
      : { ok: false, error: target ? 'the endpoint is disabled' : 'the endpoint was deleted' };
  const latencyMs = Math.round(performance.now() - started);
  const finishedAt = now();
  const next: NextStep =
    target?.endpoint.status === 'enabled'
      ? nextStep(result, delivery.attempts + 1, delivery.firstDueAt, finishedAt, options.random)
      : { status: 'failed' };
  const attempt = {
    at: new Date(startedAt).toISOString(),
    ...(result.status !== undefined ? { status: result.status } : {}),
    ...(result.ok ? {} : { error: result.error }),
    latencyMs,
  };
  if (!(await recordAttempt(delivery, attempt, next))) return undefined;
  const endpointDisabled =
    target?.endpoint.status === 'enabled'
      ? await recordEndpointHealth(delivery.merchantId, delivery.webhookId, result.ok, finishedAt)
      : false;
  recordDeliveryMetrics(result, next, endpointDisabled);
  if (endpointDisabled) {
    logger.warn('Webhook endpoint disabled after failing for 72 hours', {
      merchantId: delivery.merchantId,
      webhookId: delivery.webhookId,
    });
  }
  return { delivery: { ...delivery, attempts: delivery.attempts + 1 }, result, next, endpointDisabled };
}

/** Attempts by result, and the alarm metric of endpoints disabled for failing 72 h. */
function recordDeliveryMetrics(result: AttemptResult, next: NextStep, endpointDisabled: boolean) {
  const metric = metrics.singleMetric();
  metric.addDimensions({
    result: result.ok ? 'delivered' : next.status === 'failed' ? 'failed' : 'retrying',
  });
  metric.addMetric('WebhookAttempts', MetricUnit.Count, 1);
  if (endpointDisabled) metrics.singleMetric().addMetric('WebhookEndpointsDisabled', MetricUnit.Count, 1);
}
