/**
 * Webhooks' cost on the decision's path (part of `npm run bench`): order p50 through the local HTTP
 * API (in-memory DynamoDB Local) for a merchant with a webhook endpoint subscribed to every
 * decision.created, beside the same for a merchant without one, interleaved in the same run. The
 * difference is the subscriptions item riding in the first BatchGetItem and one outbox Put in the
 * order's transaction. Goal: within 5 %. A benchmark to read, never a timed test.
 */
import { readFileSync } from 'node:fs';
import { startInMemoryApi } from '../local/in-memory-api.ts';

const ORDERS = Number(process.env.BENCH_WEBHOOK_ORDERS ?? 400);
const WARMUP = 50;
const GOAL_PERCENT = 5;

const { baseUrl, stop } = await startInMemoryApi();
const { createMerchant } = await import('../shared/store/merchants.ts');
const { createWebhookEndpoint } = await import('../shared/store/webhooks.ts');

const merchant = () =>
  createMerchant({ name: 'bench', accountUpdatesEnabled: false, environment: 'sandbox' });
const without = await merchant();
const withWebhook = await merchant();
await createWebhookEndpoint(
  withWebhook.merchantId,
  { url: 'http://127.0.0.1:9/hooks', events: ['decision.created'] },
  Date.now(),
);

const example = JSON.parse(readFileSync(new URL('../examples/order.json', import.meta.url), 'utf8'));
let sequence = 0;
async function timedOrder(apiKey: string): Promise<number> {
  sequence++;
  const body = structuredClone(example);
  body.providerOrderId = `bench-${sequence}`;
  body.customer.contactInformation[0].address = `shopper${sequence % 50}@example.com`;
  const start = performance.now();
  const response = await fetch(`${baseUrl}/v1/order`, {
    method: 'POST',
    headers: { Authorization: apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.text();
  const elapsed = performance.now() - start;
  if (response.status !== 200) throw new Error(`order answered ${response.status}`);
  return elapsed;
}

const samples = { without: [] as number[], with: [] as number[] };
for (let i = 0; i < WARMUP + ORDERS; i++) {
  // Alternating which goes first cancels drift and any advantage of going second.
  const pair =
    i % 2 === 0
      ? [await timedOrder(without.apiKey), await timedOrder(withWebhook.apiKey)]
      : [await timedOrder(withWebhook.apiKey), await timedOrder(without.apiKey)].reverse();
  if (i < WARMUP) continue;
  samples.without.push(pair[0]!);
  samples.with.push(pair[1]!);
}
await stop();

const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const ms = (v: number) => `${v.toFixed(2)} ms`;
const base = p50(samples.without);
const withEndpoint = p50(samples.with);
const change = (100 * (withEndpoint - base)) / base;
console.log(
  `\norder through the local HTTP API (DynamoDB Local in memory), ${ORDERS} orders each, interleaved`,
);
console.log(`p50 without a webhook endpoint: ${ms(base)}`);
console.log(
  `p50 with an endpoint subscribed to decision.created: ${ms(withEndpoint)} (${change >= 0 ? '+' : ''}${change.toFixed(1)} %)`,
);
console.log(`goal within ${GOAL_PERCENT} %: ${Math.abs(change) <= GOAL_PERCENT ? 'met' : 'MISSED'}`);
