import type { ResponseOf } from '../contract/endpoints.ts';
import { ApiError, orderNotFound } from '../errors.ts';
import { deviceIdentities } from '../identity/contact-identities.ts';
import { type DigestIdentity, type IdentityRef, uniqueIdentities } from '../identity/identities.ts';
import { identityId, parseIdentityIds } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { newServiceId } from '../ids.ts';
import { receivedAt } from '../request-scope.ts';
import type { ReturnedLineItem, ReturnRequest } from '../schemas/return.ts';
import { type Decision, decide } from '../scoring/decide.ts';
import { listVerdict } from '../scoring/lists.ts';
import { identityTimeFacts, identityTimeFields } from '../scoring/signals/identity-time.ts';
import { returnSignals } from '../scoring/signals/return-signals.ts';
import { watchFacts } from '../scoring/signals/watched-identity.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { keys, type TableKey } from '../store/keys.ts';
import { type OrderItem, orderLines } from '../store/orders.ts';
import {
  getReturn,
  type ReturnEffects,
  type ReturnRecord,
  returnedUnitsFrom,
  returnedUnitsUpdate,
  returnReasonsPut,
  type StoredReturnItem,
  updateReturn,
} from '../store/returns.ts';
import { VERSION_ATTRIBUTE } from '../store/versioned.ts';
import { retryOnStaleRecord } from './retry-stale.ts';
import { type Evaluation, scoredEventUseCase } from './scored-event.ts';
import type { EndpointCall } from './use-case.ts';

type ReturnResponse = ResponseOf<'return'>;

const DAY_MS = 86_400_000;
/** Status changes kept on the record; older ones are dropped first. */
const MAX_STATUS_HISTORY = 50;

/** What a return reads: its order (and that order's identities), the order's returned units, its own devices. */
interface ReturnPlan {
  identities: IdentityRef[];
  records: TableKey[];
  identitiesFromRecords: (item: <T>(key: TableKey) => T | undefined) => IdentityRef[];
  orderKey: TableKey;
  unitsKey: TableKey;
  returnDevices: IdentityRef[];
}

/**
 * POST /v1/return through the scored-event pipeline (scored-event.ts): a return reads its order
 * (404 when unknown), the order's identities' history (a second read: they are known only from the
 * order) and its own devices, decides each returned line, and is recorded under its
 * `providerReturnId`; a re-sent return that differs only in `status`/`timestamp` records the status.
 */
export const evaluateReturn = scoredEventUseCase('return', {
  plan: ({ body, merchantId }: EndpointCall<ReturnRequest>, identity: DigestIdentity): ReturnPlan => {
    const returnKey = keys.return(merchantId, body.providerReturnId);
    const orderKey = keys.order(merchantId, body.providerOrderId);
    const unitsKey = keys.orderReturnedUnits(merchantId, body.providerOrderId);
    const returnDevices = deviceIdentities(identity, body.deviceFingerprints);
    return {
      identities: returnDevices,
      records: [orderKey, unitsKey],
      // A recorded return is answered from its record; only a new one needs the order's history.
      identitiesFromRecords: (item) =>
        item(returnKey) ? [] : parseIdentityIds(item<OrderItem>(orderKey)?.identities ?? []),
      orderKey,
      unitsKey,
      returnDevices,
    };
  },
  check: ({ plan, context }) => {
    if (!context.item(plan.orderKey)) throw orderNotFound();
  },
  evaluate: evaluateNewReturn,
  recorded: {
    key: (merchantId, body) => keys.return(merchantId, body.providerReturnId),
    answer: (stored) => JSON.parse(String(stored.responseJson)) as ReturnResponse,
    statusUpdate: (stored, body) =>
      recordStatusUpdate(stored as unknown as ReturnRecord, body.status, Number(body.timestamp)),
  },
});

function evaluateNewReturn({ call, plan, context, at, now, fingerprint }: Evaluation<'return', ReturnPlan>) {
  const { body, merchantId } = call;
  const order = context.item<OrderItem>(plan.orderKey)!;
  const lines = matchReturnedLines(
    body.returnedLineItems,
    order,
    returnedUnitsFrom(context.item(plan.unitsKey)),
  );
  const orderIdentities = parseIdentityIds(order.identities);
  const customer = orderIdentities.filter((ref) => ref.kind === 'email' || ref.kind === 'card');
  const history = {
    customer: context.snapshotsOf(customer),
    returnDevices: context.snapshotsOf(plan.returnDevices),
    all: context.snapshots,
  };
  const timestamp = Number(body.timestamp);
  const daysSinceOrder = Math.max(0, (timestamp - order.timestamp) / DAY_MS);
  // The e-mail of the order is the return's main identity: its previous event is usually the order.
  const time = identityTimeFields(
    identityTimeFacts(
      context.snapshots,
      customer.find((ref) => ref.kind === 'email'),
      at,
    ),
  );
  const emails = history.customer.filter((s) => s.ref.kind === 'email');
  const lists = listVerdict('return', context.snapshots, emails);
  const watch = watchFacts('return', context.snapshots, emails, 'e-mail', at);
  const decisions = lines.map((line) =>
    decide(
      context.models,
      context.workflow,
      returnSignals({
        refundMode: body.refundMode.refundMode,
        daysSinceOrder,
        watch,
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
      { ...context.policy, lists },
    ),
  );

  const response: ReturnResponse = {
    providerReturnId: body.providerReturnId,
    serviceReturnId: newServiceId('ret'),
    returnedLineItems: lines.map((line, i) => toReturnedLineDecision(line.stored, decisions[i]!)),
  };
  const identities = uniqueIdentities([...orderIdentities, ...plan.returnDevices]);
  const record: ReturnRecord = {
    merchantId,
    providerReturnId: body.providerReturnId,
    serviceReturnId: response.serviceReturnId,
    providerOrderId: order.providerOrderId,
    serviceOrderId: order.serviceOrderId,
    requestHash: fingerprint.requestHash,
    stableHash: fingerprint.stableHash ?? fingerprint.requestHash,
    status: body.status,
    statusTimestamp: timestamp,
    statusHistory: [{ status: body.status, timestamp, recordedAt: new Date(now).toISOString() }],
    timestamp,
    refundMode: body.refundMode.refundMode,
    returnMethod: body.returnMethod.returnMethod,
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
  return {
    write: {
      target: {
        eventType: 'return' as const,
        key: keys.return(merchantId, body.providerReturnId),
        eventId: body.providerReturnId,
      },
      record,
      attributes: { [VERSION_ATTRIBUTE]: record.version },
      decisions: record.items.map((item, i) => ({ itemRef: itemRefOf(item), decision: decisions[i]! })),
      changes,
      alsoWrite: [
        ...returnedUnitsUpdate(record, record.applied?.units, 1),
        returnReasonsPut(
          merchantId,
          body.providerReturnId,
          { reason: body.reason, lines: body.returnedLineItems.map((item) => item.reason) },
          now,
        ),
      ],
    },
    response,
  };
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
 * returned beyond those bought are not an error: they are scored (docs/decisions.md).
 */
function matchReturnedLines(
  items: readonly ReturnedLineItem[],
  order: OrderItem,
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
      },
      scoring: { category, value, quantity, unitsBought: line.quantity, unitsReturnedBefore },
    };
  });
}

/** Names a returned line for a reviewer: its first identifier as sent. */
function itemRefOf(item: StoredReturnItem): string {
  const [first] = item.identifiers;
  return first ? `${first.identifierType}:${first.identifier}` : `line:${item.orderLine}`;
}

/** One entry of the response: `reason`, not `decisionReason`, on returns (docs/decisions.md, Wire format). */
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

/** A cancelled return stops counting as returned (docs/decisions.md); every other status counts. */
const countsWhile = (status: string) => status !== 'CANCELLED';

/** What a return adds to counters: derived from its immutable fields, so re-adding is exact too. */
function effectsOf(record: ReturnRecord): ReturnEffects {
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

/**
 * Records a status change: the latest timestamp sets the status, an older one is kept in the
 * history only. Entering CANCELLED removes exactly what the return added; leaving it adds it back.
 * Versioned, so concurrent updates move the counters once.
 */
async function recordStatusUpdate(first: ReturnRecord, status: string, timestamp: number): Promise<void> {
  let current: ReturnRecord | undefined = first;
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
  stored: ReturnRecord,
  status: string,
  timestamp: number,
  now: number,
): ReturnRecord | undefined {
  if (stored.statusHistory.some((e) => e.status === status && e.timestamp === timestamp)) return undefined;
  const statusHistory = [
    ...stored.statusHistory,
    { status, timestamp, recordedAt: new Date(now).toISOString() },
  ].slice(-MAX_STATUS_HISTORY);
  const latest = timestamp >= stored.statusTimestamp;
  const next: ReturnRecord = {
    ...stored,
    status: latest ? status : stored.status,
    statusTimestamp: latest ? timestamp : stored.statusTimestamp,
    statusHistory,
    version: stored.version + 1,
  };
  next.applied = countsWhile(next.status) ? (stored.applied ?? effectsOf(stored)) : undefined;
  return next;
}
