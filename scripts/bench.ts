/**
 * `npm run bench`: CPU cost of scoring and the workflow for one order with 50 line items, the part of
 * a request that is ours rather than DynamoDB's. Scoring is pure, so identity histories are built in
 * memory with the same bucket attributes DynamoDB would hold. Prints p50/p99 against the 1 ms target.
 * A benchmark to read, never a timed test: the figure depends on the machine.
 */
import type { EventType } from '../shared/contract/endpoints.ts';
import { keyedDigests } from '../shared/digests/identity-digests.ts';
import { METRIC } from '../shared/identity/metrics.ts';
import { compileCondition } from '../shared/scoring/cel-compiler.ts';
import { decide } from '../shared/scoring/decide.ts';
import { modelFor } from '../shared/scoring/models.ts';
import { identityTimeFacts } from '../shared/scoring/signals/identity-time.ts';
import { orderSignals } from '../shared/scoring/signals/order-signals.ts';
import { orderFields, workflowVariables } from '../shared/scoring/variables.ts';
import { loadWorkflow } from '../shared/scoring/workflow-engine.ts';
import { validateWorkflow } from '../shared/scoring/workflow-validation.ts';
import { attributesForEvent } from '../shared/store/history-windows.ts';
import { toSnapshot } from '../shared/store/identity-history.ts';
import { membersAttribute } from '../shared/store/link-sketch.ts';

// `npm run bench -- scale` (or capacity | partitions | bundle): only the scale and cost figures;
// `npm run bench -- e2e`: the warm order path beside its floor; `-- tracing`: the tracing paths side by
// side; `-- import-profile`: the order function's cold import CPU by source module; `-- key-flood`: a
// merchant's orders under a flood of bad keys; `-- import`: history import alone.
const SCALE_PARTS = new Set(['scale', 'capacity', 'partitions', 'bundle']);
const OWN_PROCESS_PARTS: Record<string, string> = {
  e2e: 'scripts/bench-e2e.ts',
  tracing: 'scripts/bench-tracing.ts',
  'import-profile': 'scripts/bench-import-profile.ts',
  'key-flood': 'scripts/bench-key-flood.ts',
  lake: 'scripts/bench-lake.ts',
  import: 'scripts/bench-import.ts',
};
const ownProcessPart = OWN_PROCESS_PARTS[process.argv[2] ?? ''];
if (ownProcessPart) {
  const { execFileSync } = await import('node:child_process');
  execFileSync(process.execPath, [ownProcessPart], { stdio: 'inherit' });
  process.exit(0);
}
if (SCALE_PARTS.has(process.argv[2] ?? '')) {
  const { execFileSync } = await import('node:child_process');
  const part = process.argv[2] === 'scale' ? [] : [process.argv[2]!];
  execFileSync(process.execPath, ['scripts/bench-scale.ts', ...part], { stdio: 'inherit' });
  process.exit(0);
}

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20_000);
const WARMUP = 2_000;
const LINE_ITEMS = 50;
const TARGET_P99_MS = 1;
const DAY_MS = 86_400_000;
const now = Date.now();
/** Scoring reads digests only as ids: any key does. */
const benchDigests = keyedDigests(Buffer.alloc(32, 1));

/** An identity item as DynamoDB holds it: lifetime counters, time buckets and link sets. */
function identityItem(
  events: Record<string, number[]>,
  links: Record<string, number>,
): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [metric, ages] of Object.entries(events)) {
    for (const age of ages) {
      for (const attribute of attributesForEvent(metric, now - age)) {
        item[attribute] = ((item[attribute] as number | undefined) ?? 0) + 1;
      }
    }
  }
  for (const [kind, n] of Object.entries(links)) {
    item[membersAttribute(kind)] = new Set(Array.from({ length: n }, (_, i) => i + 1));
  }
  return item;
}

function snapshot(kind: 'email' | 'card' | 'device' | 'address' | 'phone', item: Record<string, unknown>) {
  return toSnapshot(benchDigests(kind, `${kind}-value`), { ...item, firstSeenAt: now - 200 * DAY_MS }, now);
}

// A returning customer with some history on every identity: every signal's reads do real work.
const busy = {
  [METRIC.orders]: [5 * 60_000, 40 * 60_000, 3 * DAY_MS, 20 * DAY_MS, 90 * DAY_MS, 300 * DAY_MS],
  [METRIC.orderValue]: [5 * 60_000, 3 * DAY_MS, 90 * DAY_MS],
  [METRIC.lostChargebacks]: [120 * DAY_MS],
  [METRIC.abusiveReturns]: [10 * DAY_MS, 200 * DAY_MS],
  [METRIC.openDisputes]: [30 * DAY_MS],
  [METRIC.legitimateReviews]: [60 * DAY_MS],
};
const emails = [snapshot('email', identityItem(busy, { card: 2, device: 3 }))];
const cards = [snapshot('card', identityItem(busy, { email: 4, device: 2 }))];
const devices = [snapshot('device', identityItem(busy, { email: 3, card: 2 }))];
const others = [
  snapshot('address', identityItem(busy, { email: 2 })),
  snapshot('address', identityItem(busy, { email: 1 })),
  snapshot('phone', identityItem(busy, { email: 1 })),
];
const all = [...emails, ...cards, ...devices, ...others];

const order = {
  state: 'PAID',
  totalPrice: { currencyCode: '840', amount: '2450.00' },
  lineItems: Array.from({ length: LINE_ITEMS }, (_, i) => ({ quantity: String(1 + (i % 3)) })),
  paymentInfo: [{ cvv_result_code: 'M', avs_result_code: 'Y', giftCardUsed: 'False', instrument: 'CC-A' }],
  deviceFingerprints: [{ deviceIdentifier: 'd' }],
};

// A realistic merchant workflow: signals, fields and the score, several rules deep.
const candidate = validateWorkflow(
  'order' satisfies EventType,
  {
    rules: [
      { name: 'very_high_score', decision: 'DECLINE', condition: 'abuseScore >= 95' },
      {
        name: 'chargebacks_and_big_basket',
        decision: 'DECLINE',
        condition: 'lostChargebacksOnIdentities >= 2.0 && orderValue >= 5000.0',
      },
      {
        name: 'velocity_gift_cards',
        decision: 'DECLINE',
        condition: 'ordersLastHourOnIdentities >= 2.0 && giftCardUsed > 0 && unitCount > 20',
      },
      {
        name: 'pending_no_device',
        decision: 'DECLINE',
        condition: 'orderState == "PENDING" && !hasDeviceFingerprint && abuseScore >= 60',
      },
      { name: 'high_score', decision: 'DECLINE', condition: 'abuseScore >= 90 && currencyCode == "840"' },
    ],
    defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
  },
  'wf_bench',
);
if (!candidate.valid) throw new Error(`bench workflow invalid: ${candidate.errors.join('; ')}`);
const workflow = await loadWorkflow(candidate.workflow);
const model = modelFor('order');

const coldStart = performance.now();
compileCondition(
  'order',
  'abuseScore >= 77 && cvvMismatch > 0 || orderValue > 123.0',
  workflowVariables('order'),
);
const coldCompileMs = performance.now() - coldStart;

function once(): string {
  const payments = order.paymentInfo;
  const signals = orderSignals({
    orderValue: Number(order.totalPrice.amount),
    at: now,
    cvvResultCodes: payments.flatMap((p) => (p.cvv_result_code ? [p.cvv_result_code] : [])),
    avsResultCodes: payments.flatMap((p) => (p.avs_result_code ? [p.avs_result_code] : [])),
    giftCardUsed: payments.some((p) => p.giftCardUsed === 'True' || p.instrument === 'GiftCard'),
    billingShippingMismatch: true,
    history: { emails, cards, devices, places: others, all },
    time: identityTimeFacts(all, emails[0]?.ref, now),
  });
  return decide(model, workflow, signals, orderFields(order)).subDecision;
}

for (let i = 0; i < WARMUP; i++) once();
// Wall time per iteration, in rounds: on a busy machine other processes preempt some iterations, which
// shows in the overall p99; the quietest round's p99 estimates the figure on an idle core.
const ROUND = 1_000;
const samples = new Float64Array(ITERATIONS);
const roundP99s: number[] = [];
let sink = '';
for (let i = 0; i < ITERATIONS; i++) {
  const start = performance.now();
  sink = once();
  samples[i] = performance.now() - start;
  if ((i + 1) % ROUND === 0) roundP99s.push(percentile(samples.slice(i + 1 - ROUND, i + 1).sort(), 0.99));
}
function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}
samples.sort();
const mean = samples.reduce((sum, v) => sum + v, 0) / samples.length;
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
const quietest = Math.min(...roundP99s);
const typical = [...roundP99s].sort((a, b) => a - b)[Math.floor(roundP99s.length / 2)] ?? 0;

console.log(
  `scoring + workflow, order with ${LINE_ITEMS} line items, ${all.length} identities, ${workflow.rules.length} CEL rules`,
);
console.log(`iterations ${ITERATIONS} (after ${WARMUP} warm-up), last branch: ${sink}`);
console.log(
  `p50 ${us(percentile(samples, 0.5))}  p90 ${us(percentile(samples, 0.9))}  p99 ${us(percentile(samples, 0.99))}  max ${us(percentile(samples, 1))}  mean ${us(mean)}`,
);
console.log(`p99 per ${ROUND}-iteration round: quietest ${us(quietest)}, median ${us(typical)}`);
console.log(`first compile of a new condition (cache miss): ${us(coldCompileMs)}`);
const p99 = percentile(samples, 0.99);
console.log(
  `target p99 <= ${TARGET_P99_MS} ms: ${p99 <= TARGET_P99_MS ? 'met' : quietest <= TARGET_P99_MS ? 'met in the quietest round only (machine busy)' : 'MISSED'}`,
);

// The store's client is built for DynamoDB Local when its module loads, and this process loaded it
// (above) with no endpoint: every benchmark that reaches DynamoDB runs in a process of its own.
const { execFileSync } = await import('node:child_process');
execFileSync(process.execPath, ['scripts/bench-import.ts'], { stdio: 'inherit' });
await import('./bench-training.ts');
execFileSync(process.execPath, ['scripts/bench-upload.ts'], { stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/bench-webhooks.ts'], { stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/bench-scale.ts'], { stdio: 'inherit' });
