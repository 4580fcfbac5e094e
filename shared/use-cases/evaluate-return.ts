import type { ResponseOf } from '../contract/endpoints.ts';
import { ApiError, orderNotFound } from '../errors.ts';
import { deviceIdentities } from '../identity/contact-identities.ts';
import { type IdentityRef, uniqueIdentities } from '../identity/identities.ts';
import { identityId, parseIdentityIds } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { newServiceId } from '../ids.ts';
import { recordDecisionMetric } from '../observability-decisions.ts';
import { receivedAt } from '../request-scope.ts';
import type { ReturnedLineItem, ReturnRequest } from '../schemas/return.ts';
import { type Decision, decide } from '../scoring/decide.ts';
import { identityTimeFacts, identityTimeFields } from '../scoring/signals/identity-time.ts';
import { returnSignals } from '../scoring/signals/return-signals.ts';
import { loadDecisionContext } from '../store/decision-context.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { keys } from '../store/keys.ts';
import { orderLines, type StoredOrder } from '../store/orders.ts';
import {
  getReturn,
  type ReturnEffects,
  recordReturn,
  returnedUnitsFrom,
  type StoredReturn,
  type StoredReturnItem,
  updateReturn,
} from '../store/returns.ts';
import { eventTime } from './event-time.ts';
import { classifyRepeat, eventFingerprint, replayOf } from './idempotency.ts';
import { retryOnStaleRecord } from './retry-stale.ts';
import { type Answer, type EndpointCall, fresh, storedAnswer } from './use-case.ts';

type ReturnResponse = ResponseOf<'return'>;

/** Fields whose change alone makes a re-sent return a status update rather than a conflict. */
const STATUS_FIELDS = ['status', 'timestamp'] as const;
const DAY_MS = 86_400_000;
/** Status changes kept on the record; older ones are dropped first. */
const MAX_STATUS_HISTORY = 50;

/**
 * POST /v1/return: validate -> load the order, the return record and the linked history (two
 * reads) -> score each returned line -> decide -> one transaction -> respond.
 */
export async function evaluateReturn({
  body,
  merchantId,
  notify,
}: EndpointCall<ReturnRequest>): Promise<Answer<ReturnResponse>> {
  const now = receivedAt();
  const at = eventTime(body.timestamp, now);
  const fingerprint = eventFingerprint(body, STATUS_FIELDS);
  const returnKey = keys.return(merchantId, body.providerReturnId);
  const orderKey = keys.order(merchantId, body.providerOrderId);
  const unitsKey = keys.orderReturnedUnits(merchantId, body.providerOrderId);
  const returnDevices = deviceIdentities(body.deviceFingerprints);
  const context = await loadDecisionContext({
    merchantId,
    notify,
    eventType: 'return',
    identities: returnDevices,
    records: [returnKey, orderKey, unitsKey],
    now: at,
    // A recorded return is answered from its record; only a new one needs the order's history.
    identitiesFromRecords: (item) =>
      item(returnKey) ? [] : parseIdentityIds(item<StoredOrder>(orderKey)?.identities ?? []),
  });
  const order = context.item<StoredOrder>(orderKey);
  if (!order) throw orderNotFound();
  const existing = context.item<StoredReturn>(returnKey);
  if (existing) return answerRepeat(existing, body, fingerprint);

  const lines = matchReturnedLines(body.returnedLineItems, order, returnedUnitsFrom(context.item(unitsKey)));
  const orderIdentities = parseIdentityIds(order.identities);
  const customer = orderIdentities.filter((ref) => ref.kind === 'email' || ref.kind === 'card');
  const history = {
    customer: context.snapshotsOf(customer),
    returnDevices: context.snapshotsOf(returnDevices),
    all: context.snapshots,
  };
  const timestamp = Number(body.timestamp);
  const daysSinceOrder = Math.max(0, (timestamp - order.timestamp) / DAY_MS);
  const model = context.models;
  // The e-mail of the order is the return's main identity: its previous event is usually the order.
  const time = identityTimeFields(
    identityTimeFacts(
      context.snapshots,
      customer.find((ref) => ref.kind === 'email'),
      at,
    ),
  );
  const decisions = lines.map((line) =>
    decide(
      model,
      context.workflow,
      returnSignals({
        refundMode: body.refundMode.refundMode,
        daysSinceOrder,
        item: line.scoring,
        history,
        ownEmails: customer.filter((ref) => ref.kind === 'email'),
      }),
      // The return fields a merchant's workflow conditions may read (scoring/variables.ts).
      {
        refundMode: body.refundMode.refundMode,
        returnMethod: body.returnMethod.returnMethod,
        returnStatus: body.status,
        returnedLineItemCount: lines.length,
        itemQuantity: line.scoring.quantity,
        itemCategory: line.scoring.category,
        itemValue: line.scoring.value,
        ...time,
      },
    ),
  );

  const serviceReturnId = newServiceId('ret');
  const response: ReturnResponse = {
    providerReturnId: body.providerReturnId,
    serviceReturnId,
    returnedLineItems: lines.map((line, i) => toReturnedLineDecision(line.stored, decisions[i]!)),
  };
  const identities = uniqueIdentities([...orderIdentities, ...returnDevices]);
  const record: StoredReturn = {
    merchantId,
    providerReturnId: body.providerReturnId,
    serviceReturnId,
    providerOrderId: order.providerOrderId,
    serviceOrderId: order.serviceOrderId,
    ...fingerprint,
    status: body.status,
    statusTimestamp: timestamp,
    statusHistory: [{ status: body.status, timestamp, recordedAt: new Date(now).toISOString() }],
    timestamp,
    refundMode: body.refundMode.refundMode,
    returnMethod: body.returnMethod.returnMethod,
    reason: body.reason,
    items: lines.map((line) => line.stored),
    identities: identities.map(identityId),
    decisions,
    responseJson: JSON.stringify(response),
    version: 1,
    createdAt: new Date(now).toISOString(),
    eventAt: at,
  };
  record.applied = countsWhile(body.status) ? effectsOf(record) : undefined;
  // Links are history of who was seen together; they stay even if the return is later cancelled.
  const changes = new HistoryChanges().linkAll(identities, at);
  if (record.applied) moveReturnCounters(changes, record.applied, 1);

  const outcome = await recordReturn(record, changes, context.items, now);
  if (!outcome.recorded) return answerRepeat(outcome.existing, body, fingerprint);
  for (const decision of decisions) recordDecisionMetric('return', decision.decision);
  return fresh(response);
}

interface MatchedLine {
  stored: StoredReturnItem;
  scoring: {
    category: string;
    value: number;
    quantity: number;
    unitsBought: number;
    unitsReturnedBefore: number;
  };
}

/**
 * Each returned line must share an identifier (type and value) with a line of the order. Units
 * returned beyond those bought are not an error: they are scored (decisions.md).
 */
function matchReturnedLines(
  items: readonly ReturnedLineItem[],
  order: StoredOrder,
  returnedBefore: Map<number, number>,
): MatchedLine[] {
  const returned = new Map(returnedBefore);
  const lines = orderLines(order);
  return items.map((item, index) => {
    const candidates = lines.flatMap((line, lineIndex) =>
      line.identifiers.some((a) =>
        item.lineItem.identifiers.some(
          (b) => a.identifierType === b.identifierType && a.identifier === b.identifier,
        ),
      )
        ? [lineIndex]
        : [],
    );
    if (candidates.length === 0) {
      throw new ApiError(
        'unprocessable_entity',
        'No item of the original order has any of these identifiers.',
        {
          field: `returnedLineItems[${index}].lineItem.identifiers`,
        },
      );
    }
    // The same product on several order lines: take the first line with units left to return.
    const orderLine = candidates.find((c) => (returned.get(c) ?? 0) < lines[c]!.quantity) ?? candidates[0]!;
    const line = lines[orderLine]!;
    const quantity = Number(item.quantity);
    const unitsReturnedBefore = returned.get(orderLine) ?? 0;
    returned.set(orderLine, unitsReturnedBefore + quantity);
    const category = item.category ?? line.category;
    const value = line.unitPrice * quantity;
    return {
      stored: {
        identifiers: item.lineItem.identifiers,
        orderLine,
        quantity,
        value,
        category,
        reason: item.reason,
      },
      scoring: { category, value, quantity, unitsBought: line.quantity, unitsReturnedBefore },
    };
  });
}

/** One entry of the response: `reason`, not `decisionReason`, on returns (contract 2.3). */
function toReturnedLineDecision(
  item: StoredReturnItem,
  decision: Decision,
): ReturnResponse['returnedLineItems'][number] {
  const [first] = item.identifiers;
  return {
    lineItem: { identifierType: first!.identifierType, identifier: first!.identifier },
    decisionType: decision.decisionType,
    decision: decision.decision,
    subDecision: decision.subDecision,
    reason: decision.reason,
    abuseScore: decision.abuseScore,
  };
}

/** A cancelled return stops counting as returned (decisions.md); every other status counts. */
const countsWhile = (status: string) => status !== 'CANCELLED';

/** What a return adds to counters: derived from its immutable fields, so re-adding is exact too. */
function effectsOf(record: StoredReturn): ReturnEffects {
  const units: Record<string, number> = {};
  for (const item of record.items) units[item.orderLine] = (units[item.orderLine] ?? 0) + item.quantity;
  return {
    at: record.timestamp,
    value: record.items.reduce((sum, item) => sum + item.value, 0),
    identities: record.identities,
    units,
  };
}

function moveReturnCounters(changes: HistoryChanges, effects: ReturnEffects, sign: 1 | -1): void {
  const refs: IdentityRef[] = parseIdentityIds(effects.identities);
  changes.addEach(refs, METRIC.returns, sign, effects.at);
  changes.addEach(refs, METRIC.returnValue, sign * effects.value, effects.at);
}

async function answerRepeat(
  stored: StoredReturn,
  body: ReturnRequest,
  fingerprint: { requestHash: string; stableHash: string },
): Promise<Answer<ReturnResponse>> {
  switch (classifyRepeat(stored, fingerprint)) {
    case 'replay':
      return replayOf(stored);
    case 'status_update':
      await recordStatusUpdate(stored, body.status, Number(body.timestamp));
      return storedAnswer(stored, false);
    case 'conflict':
      throw new ApiError(
        'duplicate_return',
        'A return with this providerReturnId was already recorded with a different body.',
        { field: 'providerReturnId' },
      );
  }
}

/**
 * Records a status change: the latest timestamp sets the status, an older one is kept in the
 * history only. Entering CANCELLED removes exactly what the return added; leaving it adds it back.
 * Versioned, so concurrent updates move the counters once.
 */
async function recordStatusUpdate(first: StoredReturn, status: string, timestamp: number): Promise<void> {
  let current: StoredReturn | undefined = first;
  await retryOnStaleRecord(async () => {
    current ??= await getReturn(first.merchantId, first.providerReturnId);
    const read = current;
    current = undefined; // a retry re-reads
    if (!read) return;
    const next = withStatus(read, status, timestamp, receivedAt());
    if (!next) return;
    const changes = new HistoryChanges();
    let units: { moved: Record<string, number> | undefined; sign: 1 | -1 } = { moved: undefined, sign: 1 };
    if (read.applied && !next.applied) {
      moveReturnCounters(changes, read.applied, -1);
      units = { moved: read.applied.units, sign: -1 };
    } else if (!read.applied && next.applied) {
      moveReturnCounters(changes, next.applied, 1);
      units = { moved: next.applied.units, sign: 1 };
    }
    await updateReturn(next, read.version, units, changes, receivedAt());
  });
}

/** The return after a status event, or undefined when the event was already recorded. */
function withStatus(
  stored: StoredReturn,
  status: string,
  timestamp: number,
  now: number,
): StoredReturn | undefined {
  if (stored.statusHistory.some((e) => e.status === status && e.timestamp === timestamp)) return undefined;
  const statusHistory = [
    ...stored.statusHistory,
    { status, timestamp, recordedAt: new Date(now).toISOString() },
  ].slice(-MAX_STATUS_HISTORY);
  const latest = timestamp >= stored.statusTimestamp;
  const next: StoredReturn = {
    ...stored,
    status: latest ? status : stored.status,
    statusTimestamp: latest ? timestamp : stored.statusTimestamp,
    statusHistory,
    version: stored.version + 1,
  };
  next.applied = countsWhile(next.status) ? (stored.applied ?? effectsOf(stored)) : undefined;
  return next;
}
