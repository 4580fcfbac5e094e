/**
 * `npm run eval`: plays seeded, labeled synthetic traffic through the real HTTP API (local adapter,
 * in-memory DynamoDB Local) and prints, per abuse pattern, the ROC AUC of abuseScore, precision and
 * recall of non-APPROVE decisions under the default workflows, and the false-decline rate on good
 * customers.
 */
import { falseDeclineRate, reportByPattern, type ScoredEvent } from '../eval/metrics.ts';
import * as patterns from '../eval/patterns.ts';
import { SeededRandom } from '../eval/random.ts';
import { startInMemoryApi } from '../local/in-memory-api.ts';

const seed = Number(process.env.EVAL_SEED ?? 20261121);
const { baseUrl, stop } = await startInMemoryApi();
const { createMerchant } = await import('../shared/store/merchants.ts');
const merchant = await createMerchant({ name: 'eval', accountUpdatesEnabled: true, environment: 'sandbox' });

const events: ScoredEvent[] = [];
let requests = 0;
const ctx: patterns.EvalContext = {
  rng: new SeededRandom(seed),
  post: async (path, body) => {
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
  },
  record: (pattern, label, eventType, response) => {
    const decision = mostSevereDecision(eventType, response as DecisionBearing);
    events.push({ pattern, label, eventType, abuseScore: decision.abuseScore, decision: decision.decision });
  },
};

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

const started = Date.now();
try {
  const shoppers = await patterns.goodShoppers(ctx, 300);
  await patterns.serialReturners(ctx, 30);
  await patterns.emptyBoxReturners(ctx, 30);
  await patterns.chargebackRings(ctx, 10);
  await patterns.multiAccounting(ctx, 20);
  await patterns.selfReferral(ctx, 20);
  await patterns.credentialStuffing(ctx, shoppers.slice(0, 150), 8);
  await patterns.accountTakeover(ctx, shoppers.slice(150, 190));
} finally {
  await stop();
}

const percent = (x: number) => (Number.isNaN(x) ? '   -  ' : `${(x * 100).toFixed(1).padStart(5)}%`);
console.log(`seed ${seed}: ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
console.log('pattern              events          positives  negatives   ROC AUC  precision  recall');
for (const row of reportByPattern(events, patterns.LEGITIMATE)) {
  console.log(
    `${row.pattern.padEnd(20)} ${row.eventTypes.padEnd(15)} ${String(row.positives).padStart(9)} ${String(row.negatives).padStart(10)}   ${row.auc.toFixed(3).padStart(7)}  ${percent(row.precision)}  ${percent(row.recall)}`,
  );
}
console.log(
  `\nfalse declines on good customers: ${percent(falseDeclineRate(events))} of ${events.filter((e) => e.label === 0).length} events`,
);
