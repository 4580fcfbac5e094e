import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { feedLakeOnce, startLakeAtStreamEnd } from '../local/lake-poller.ts';
import { EVENT_TYPES } from '../shared/contract/endpoints.ts';
import { duckDbRunner } from '../shared/lake/lake-queries.ts';
import { openLocalLake } from '../shared/lake/local-lake.ts';
import { TrainingError } from '../shared/learning/train.ts';
import { createApiKey, createMerchant } from '../shared/store/merchants.ts';
import { recountTradeoffHistograms, refreshGuard } from '../shared/use-cases/decision-economics.ts';
import { readTrainingSetFor, trainMerchantModel } from '../shared/use-cases/train-merchant-model.ts';
import { reviewFate } from './analyst.ts';
import { type Clock, keepRecordsThroughReplay } from './clock.ts';
import type { EventType } from './context.ts';
import type { ScoredEvent } from './metrics.ts';
import type { Step } from './schedule.ts';
import { stableChance } from './stable.ts';

/**
 * One merchant's timeline played through the real HTTP API (`npm run eval`): every step at its own
 * time with the server's clock there; the merchant's analyst works the review queue daily, the
 * nightly job measures the good-customer guard weekly, and (when asked) the merchant's models are
 * retrained every 30 days. Imported only once the in-memory API is up (it reads the store's config).
 */
export const RETRAIN_EVERY_DAYS = 30;
/** The nightly job also measures the good-customer guard; here once a simulated week, in both runs. */
const GUARD_EVERY_DAYS = 7;
const DAY = 86_400_000;

export interface Player {
  /** Plays the steps for a fresh merchant; `retrain` retrains and auto-promotes every 30 days. */
  play: (steps: readonly Step[], options: PlayOptions) => ReturnType<typeof playTimeline>;
  /** Requests sent so far. */
  requests: () => number;
}

export interface PlayOptions {
  retrain: boolean;
  /** Where the timeline ends: a chargeback caused after it never arrives. */
  end: number;
  /** Create the merchant at the first step's time (it has no life before its traffic); else now. */
  bornWithTraffic?: boolean;
}

export function timelinePlayer(baseUrl: string, clock: Clock): Player {
  const state = { baseUrl, clock, requests: 0 };
  return {
    play: (steps, options) => playTimeline(state, steps, options),
    requests: () => state.requests,
  };
}

interface PlayerState {
  baseUrl: string;
  clock: Clock;
  requests: number;
  /** The last timeline's lake: the next starts where its stream reading stopped. */
  lakeDir?: string;
}

export interface PlayedEvent extends ScoredEvent {
  eventType: EventType;
  /** The step's index: the same event in both runs. */
  step: number;
  at: number;
  /** Whether a trained (promoted) model was live for the event's type when it arrived. */
  trainedModelLive: boolean;
  /** The reason text answered (which signals drove the score). */
  reason: string;
  /** Good traffic: the honest look-alike it belongs to. */
  cohort?: string;
  /** What the economics weigh: an order's value, a return's returned value; 0 for account events. */
  value: number;
}

interface TrainingLogLine {
  day: number;
  eventType: string;
  outcome: string;
}

async function post(state: PlayerState, apiKey: string, path: string, body: unknown): Promise<unknown> {
  return call(state, 'POST', apiKey, path, body);
}

async function call(
  state: PlayerState,
  method: 'GET' | 'POST',
  apiKey: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  state.requests++;
  const response = await fetch(`${state.baseUrl}${path}`, {
    method,
    headers: { Authorization: apiKey, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 200)
    throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

interface QueuedReview {
  reviewId: string;
  providerId: string;
}

/** Feedback the merchant's analyst sent in one run (eval/analyst.ts). */
interface AnalystLog {
  queued: number;
  resolved: { abuse: number; legitimate: number; wrong: number };
}

/**
 * The merchant's analyst at work on day `at`: reads the open review queue through the management API
 * and resolves each item whose time has come (`reviewFate`), as a person would in the console.
 */
async function workReviewQueue(
  state: PlayerState,
  consoleKey: string,
  at: number,
  verdicts: ReadonlyMap<string, { truth: 0 | 1; at: number }>,
  log: AnalystLog,
) {
  state.clock.set(at);
  const open: QueuedReview[] = [];
  let cursor: string | undefined;
  do {
    const page = (await call(
      state,
      'GET',
      consoleKey,
      `/v1/reviews?status=open&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    )) as { items: QueuedReview[]; nextCursor?: string };
    open.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  for (const review of open) {
    const verdict = verdicts.get(review.providerId);
    if (!verdict) continue;
    const fate = reviewFate(review.providerId, verdict.truth);
    if (!fate.resolves || at < verdict.at + fate.afterDays * DAY) continue;
    await call(state, 'POST', consoleKey, `/v1/reviews/${review.reviewId}/resolve`, {
      outcome: fate.outcome,
    });
    log.resolved[fate.outcome]++;
    if ((fate.outcome === 'abuse') !== (verdict.truth === 1)) log.resolved.wrong++;
  }
}

async function playTimeline(state: PlayerState, steps: readonly Step[], options: PlayOptions) {
  const { retrain, end } = options;
  keepRecordsThroughReplay(steps[0]!.at, state.clock.real());
  if (options.bornWithTraffic) state.clock.set(steps[0]!.at - 60_000);
  const merchant = await createMerchant({
    name: retrain ? 'eval-trained' : 'eval-default',
    accountUpdatesEnabled: true,
    environment: 'sandbox',
  });
  const analystKey = await createApiKey({
    merchantId: merchant.merchantId,
    environment: 'sandbox',
    scope: 'console',
    name: 'analyst@eval.example',
  });
  if (!analystKey) throw new Error('no console key for the analyst');
  const analyst: AnalystLog = { queued: 0, resolved: { abuse: 0, legitimate: 0, wrong: 0 } };
  /** What each reviewed event really was, by the id the review queue shows, and when it was decided. */
  const verdicts = new Map<string, { truth: 0 | 1; at: number }>();
  const events: PlayedEvent[] = [];
  const trainingLog: TrainingLogLine[] = [];
  const trainedSince = new Map<string, number>();
  const start = steps[0]!.at;
  let nextTraining = start + RETRAIN_EVERY_DAYS * DAY;
  let nextGuard = start + GUARD_EVERY_DAYS * DAY;
  let nextShift = start + DAY;
  /** Each order's line prices by id, for the value a return puts at stake. */
  const orderLines = new Map<string, Map<string, number>>();
  let causedChargebacks = 0;

  // The learning loop trains through the lake, fed from the table's stream as `npm start` feeds it:
  // the timeline's own lake, from where the previous timeline's stopped, on one connection.
  const lakeDir = mkdtempSync(join(tmpdir(), 'eval-lake-'));
  await startLakeAtStreamEnd(lakeDir, state.lakeDir);
  state.lakeDir = lakeDir;
  const lakeConnection = await openLocalLake(lakeDir);
  const caughtUpLake = async () => {
    await feedLakeOnce(lakeConnection, lakeDir);
    return duckDbRunner(lakeConnection);
  };
  const retrainAll = async (at: number) => {
    state.clock.set(at);
    const lake = await caughtUpLake();
    for (const eventType of EVENT_TYPES) {
      const day = Math.round((at - start) / DAY);
      try {
        const set = await readTrainingSetFor(lake, { merchantId: merchant.merchantId, eventType, now: at });
        const run = await trainMerchantModel({
          merchantId: merchant.merchantId,
          eventType,
          promote: true,
          now: at,
          set,
        });
        const { trainedOn, evaluation } = run.version;
        if (run.promoted && !trainedSince.has(eventType)) trainedSince.set(eventType, at);
        trainingLog.push({
          day,
          eventType,
          outcome: `${trainedOn.events} rows, ${trainedOn.positives} positive; holdout ${evaluation.holdout.events} (${evaluation.holdout.positives} positive) AUC ${evaluation.candidate.rocAuc ?? '-'} vs ${evaluation.active.rocAuc ?? '-'}; thresholds ${run.version.thresholds.declineAt}/${run.version.thresholds.reviewAt}: ${run.promoted ? 'promoted' : `kept active (${evaluation.promotion.reasons.join('; ')})`}`,
        });
      } catch (error) {
        if (!(error instanceof TrainingError)) throw error;
        trainingLog.push({ day, eventType, outcome: `not trained: ${error.message}` });
      }
    }
  };

  /** Feedback caused by a decision (a chargeback on a fraudulent order that shipped), in time order. */
  const caused: Step[] = [];
  const disputed = new Set(steps.flatMap((s) => /^\/v1\/order\/dispute\/(.+)$/.exec(s.path)?.[1] ?? []));
  let next = 0;
  while (next < steps.length || caused.length > 0) {
    const step =
      caused[0] && (next >= steps.length || caused[0].at < steps[next]!.at)
        ? caused.shift()!
        : steps[next++]!;
    // The analyst's daily shift, the guard's measurement and the retraining, in time order, before
    // the step's event arrives.
    while (step.at >= nextShift || step.at >= nextGuard || (retrain && step.at >= nextTraining)) {
      if (retrain && nextTraining <= nextShift && nextTraining <= nextGuard) {
        await retrainAll(nextTraining);
        nextTraining += RETRAIN_EVERY_DAYS * DAY;
      } else if (nextGuard <= nextShift) {
        state.clock.set(nextGuard);
        // The guard is measured on the 90 days' histogram, counted from the lake as the nightly item does.
        await recountTradeoffHistograms(await caughtUpLake(), merchant.merchantId, EVENT_TYPES, nextGuard);
        for (const eventType of EVENT_TYPES) await refreshGuard(merchant.merchantId, eventType, nextGuard);
        nextGuard += GUARD_EVERY_DAYS * DAY;
      } else {
        await workReviewQueue(state, analystKey.apiKey, nextShift, verdicts, analyst);
        nextShift += DAY;
      }
    }
    state.clock.set(step.at);
    const response = await post(state, merchant.apiKey, step.path, step.body);
    if (step.path === '/v1/order') rememberLines(orderLines, step.body);
    if (!step.label) continue;
    const { pattern, label, eventType } = step.label;
    const decision = mostSevereDecision(eventType, response as DecisionBearing);
    if (allDecisions(eventType, response as DecisionBearing).some((d) => d.decision === 'REVIEW')) {
      analyst.queued++;
      verdicts.set(reviewIdOf(eventType, step.body, response), { truth: label, at: step.at });
    }
    const chargeback = cardholderDispute(step, decision.decision, disputed);
    if (chargeback && chargeback.at < end) {
      caused.push(chargeback);
      caused.sort((a, b) => a.at - b.at || a.order - b.order);
      causedChargebacks++;
    }
    const since = trainedSince.get(eventType);
    events.push({
      step: step.order,
      at: step.at,
      pattern,
      label,
      eventType,
      abuseScore: decision.abuseScore,
      decision: decision.decision,
      trainedModelLive: since !== undefined && step.at >= since,
      reason: decision.decisionReason ?? decision.reason ?? '',
      ...(step.label.cohort ? { cohort: step.label.cohort } : {}),
      ...(step.at < (step.label.evidenceAt ?? step.at) ? { beforeEvidence: true } : {}),
      value: valueAtStake(eventType, step.body, orderLines),
    });
  }
  state.clock.set(undefined);
  lakeConnection.closeSync();
  return { events, trainingLog, analyst, causedChargebacks, trainedFrom: start + RETRAIN_EVERY_DAYS * DAY };
}

interface SentOrder {
  providerOrderId: string;
  totalPrice: { amount: string };
  lineItems: { identifiers: { identifier: string }[]; unitPrice: { amount: string } }[];
}

function rememberLines(orderLines: Map<string, Map<string, number>>, body: unknown) {
  const order = body as SentOrder;
  orderLines.set(
    order.providerOrderId,
    new Map(order.lineItems.map((line) => [line.identifiers[0]!.identifier, Number(line.unitPrice.amount)])),
  );
}

/** The value the economics weigh for an event: an order's total, the returned items' value, else 0. */
function valueAtStake(
  eventType: EventType,
  body: unknown,
  orderLines: ReadonlyMap<string, ReadonlyMap<string, number>>,
): number {
  if (eventType === 'order') return Number((body as SentOrder).totalPrice.amount);
  if (eventType !== 'return') return 0;
  const returned = body as {
    providerOrderId: string;
    returnedLineItems: { lineItem: { identifiers: { identifier: string }[] }; quantity: string }[];
  };
  const prices = orderLines.get(returned.providerOrderId);
  return returned.returnedLineItems.reduce(
    (sum, item) => sum + (prices?.get(item.lineItem.identifiers[0]!.identifier) ?? 0) * Number(item.quantity),
    0,
  );
}

/** Share of fraudulent orders that shipped whose cardholder disputes the charge. */
const CARDHOLDER_DISPUTE_SHARE = 0.8;

/**
 * A fraudulent order the service approved ships on a stolen card: its cardholder disputes it 20-60
 * days later, as most do, and the merchant forwards the chargeback (LOST: fraud chargebacks are
 * rarely won). A declined order was never charged, so nothing follows it. Orders the traffic already
 * gives a chargeback keep only that one. The draws depend only on the order's id.
 */
function cardholderDispute(step: Step, decision: string, disputed: ReadonlySet<string>): Step | undefined {
  if (step.label?.eventType !== 'order' || step.label.label !== 1 || decision !== 'APPROVE') return undefined;
  const order = step.body as { providerOrderId: string; totalPrice: { amount: string } };
  if (disputed.has(order.providerOrderId)) return undefined;
  if (stableChance(`disputes:${order.providerOrderId}`) >= CARDHOLDER_DISPUTE_SHARE) return undefined;
  const at = step.at + (20 + Math.floor(stableChance(`filed:${order.providerOrderId}`) * 41)) * DAY;
  return {
    at,
    order: step.order,
    path: `/v1/order/dispute/${order.providerOrderId}`,
    body: {
      dispute: [
        {
          disputeId: `dispute-${order.providerOrderId}`,
          disputeType: 'CHARGEBACK',
          disputeReason: 'FRAUD',
          disputeStatus: 'LOST',
          disputeAmount: Number(order.totalPrice.amount),
          timestamp: at,
        },
      ],
    },
  };
}

interface WireDecision {
  decision: string;
  abuseScore: number;
  /** `decisionReason` on most responses, `reason` on a return's lines. */
  decisionReason?: string;
  reason?: string;
}

interface DecisionBearing {
  cartLevelDecisions?: { decisions: WireDecision[] }[];
  returnedLineItems?: WireDecision[];
  Decisions?: { decisions: WireDecision[] }[];
}

/** Where each response type carries its decisions. */
function allDecisions(eventType: EventType, body: DecisionBearing): WireDecision[] {
  const decisions =
    eventType === 'order'
      ? body.cartLevelDecisions?.[0]?.decisions
      : eventType === 'return'
        ? body.returnedLineItems
        : body.Decisions?.[0]?.decisions;
  if (!decisions?.length) throw new Error(`a ${eventType} response without decisions`);
  return decisions;
}

/** A return counts by its most severe line. */
function mostSevereDecision(eventType: EventType, body: DecisionBearing): WireDecision {
  return allDecisions(eventType, body).reduce((worst, d) => (d.abuseScore > worst.abuseScore ? d : worst));
}

/** The id the review queue shows for an event (`providerId`: the id its record is stored under). */
function reviewIdOf(eventType: EventType, request: unknown, response: unknown): string {
  const field = (body: unknown, name: string) => String((body as Record<string, unknown>)[name]);
  switch (eventType) {
    case 'order':
      return field(request, 'providerOrderId');
    case 'return':
      return field(request, 'providerReturnId');
    case 'signup':
      return field(request, 'customerId');
    case 'login':
      return field(response, 'serviceLoginID');
    case 'account':
      return field(response, 'serviceAccountEventId');
  }
}
