/**
 * `npm run eval`: plays seeded, labeled synthetic traffic through the real HTTP API (local adapter,
 * in-memory DynamoDB Local) and prints, per abuse pattern, the ROC AUC of abuseScore, precision and
 * caught share (recall) of non-APPROVE decisions under the default workflows, and the false-decline
 * rate on good customers. Events are played in time order with the server's clock at each event's
 * time (see eval/patterns.ts).
 */
import type { AddressInfo } from 'node:net';
import { falseDeclineRate, reportByPattern, type ScoredEvent } from '../eval/metrics.ts';
import * as patterns from '../eval/patterns.ts';
import { SeededRandom } from '../eval/random.ts';
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment } from '../local/local-env.ts';

const seed = Number(process.env.EVAL_SEED ?? 20261121);
const dynamoDb = await startDynamoDbLocal({});
applyLocalEnvironment(dynamoDb.endpoint, {
  DEFAULT_RATE_LIMIT_PER_SECOND: '100000',
  DEFAULT_RATE_LIMIT_BURST: '100000',
});
const { ensureTable } = await import('../shared/store/ensure-table.ts');
const { dynamoDbClient, tableName } = await import('../shared/store/client.ts');
const { createMerchant } = await import('../shared/store/merchants.ts');
const { createLocalServer } = await import('../local/http-adapter.ts');
await ensureTable(dynamoDbClient, tableName);
const merchant = await createMerchant({ name: 'eval', accountUpdatesEnabled: true, environment: 'sandbox' });
const server = createLocalServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const events: ScoredEvent[] = [];
let requests = 0;

/**
 * The server's clock during the run: each event is delivered at its own time, as live traffic would
 * be, so what the service received "by then" is exactly the events before it (dispositions, which
 * carry no time, are dated by this clock). Only ever moves forward: events are played in time order.
 */
const realNow = Date.now.bind(Date);
let simulatedNow: number | undefined;
Date.now = () => simulatedNow ?? realNow();

interface Step {
  at: number;
  order: number;
  path: string;
  body: unknown;
  label?: patterns.Label;
}
const steps: Step[] = [];
const ctx: patterns.EvalContext = {
  rng: new SeededRandom(seed),
  now: realNow() - 60_000,
  send: (at, path, body, label) => {
    steps.push({ at, order: steps.length, path, body, ...(label ? { label } : {}) });
  },
};

async function post(path: string, body: unknown): Promise<unknown> {
  requests++;
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: merchant.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200)
    throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

function record({ pattern, label, eventType }: patterns.Label, response: unknown): void {
  const decision = mostSevereDecision(eventType, response as DecisionBearing);
  events.push({ pattern, label, eventType, abuseScore: decision.abuseScore, decision: decision.decision });
}

interface WireDecision {
  decision: string;
  abuseScore: number;
}

interface DecisionBearing {
  cartLevelDecisions?: { decisions: WireDecision[] }[];
  returnedLineItems?: WireDecision[];
  Decisions?: { decisions: WireDecision[] }[];
}

/** Where each response type carries its decisions; a return counts by its most severe line. */
function mostSevereDecision(eventType: patterns.EventType, body: DecisionBearing): WireDecision {
  const decisions =
    eventType === 'order'
      ? body.cartLevelDecisions?.[0]?.decisions
      : eventType === 'return'
        ? body.returnedLineItems
        : body.Decisions?.[0]?.decisions;
  if (!decisions?.length) throw new Error(`a ${eventType} response without decisions`);
  return decisions.reduce((worst, d) => (d.abuseScore > worst.abuseScore ? d : worst));
}

const started = realNow();
try {
  const shoppers = patterns.goodShoppers(ctx, 300);
  patterns.serialReturners(ctx, 30);
  patterns.emptyBoxReturners(ctx, 30);
  patterns.chargebackRings(ctx, 10);
  patterns.lateFeedbackRings(ctx, 10);
  patterns.newAccountBursts(ctx, 12);
  patterns.multiAccounting(ctx, 20);
  patterns.selfReferral(ctx, 20);
  patterns.credentialStuffing(ctx, shoppers.slice(0, 150), 8);
  patterns.accountTakeover(ctx, shoppers.slice(150, 190));
  steps.sort((a, b) => a.at - b.at || a.order - b.order);
  for (const step of steps) {
    simulatedNow = step.at;
    const response = await post(step.path, step.body);
    if (step.label) record(step.label, response);
  }
} finally {
  simulatedNow = undefined;
  server.close();
  await dynamoDb.stop();
}

const percent = (x: number) => (Number.isNaN(x) ? '   -  ' : `${(x * 100).toFixed(1).padStart(5)}%`);
console.log(`seed ${seed}: ${requests} requests in ${((realNow() - started) / 1000).toFixed(1)} s\n`);
console.log(
  `${'pattern'.padEnd(31)} ${'events'.padEnd(15)} positives  negatives   ROC AUC  precision  caught`,
);
for (const row of reportByPattern(events, patterns.LEGITIMATE)) {
  console.log(
    `${row.pattern.padEnd(31)} ${row.eventTypes.padEnd(15)} ${String(row.positives).padStart(9)} ${String(row.negatives).padStart(10)}   ${row.auc.toFixed(3).padStart(7)}  ${percent(row.precision)}  ${percent(row.recall)}`,
  );
}
console.log(
  `\nfalse declines on good customers: ${percent(falseDeclineRate(events))} of ${events.filter((e) => e.label === 0).length} events`,
);
