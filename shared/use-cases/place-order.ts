import { createHash } from 'node:crypto';
import type { ResponseOf } from '../contract/endpoints.ts';
import { ApiError } from '../errors.ts';
import { METRIC } from '../identity/metrics.ts';
import { identitiesOfOrder } from '../identity/order-identities.ts';
import { newServiceId } from '../ids.ts';
import { recordDecisionMetric } from '../observability-decisions.ts';
import { receivedAt } from '../request-scope.ts';
import type { OrderRequest } from '../schemas/order.ts';
import { decide, toWireDecision } from '../scoring/decide.ts';
import { identityTimeFacts, identityTimeFields } from '../scoring/signals/identity-time.ts';
import { orderSignals } from '../scoring/signals/order-signals.ts';
import { orderFields } from '../scoring/variables.ts';
import { loadDecisionContext } from '../store/decision-context.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { keys } from '../store/keys.ts';
import { recordOrder, type StoredOrder, storedOrderLine, updateOrderState } from '../store/orders.ts';
import { eventTime } from './event-time.ts';
import { classifyRepeat, eventFingerprint } from './idempotency.ts';
import { type Answer, type EndpointCall, fresh } from './use-case.ts';

type OrderResponse = ResponseOf<'order'>;

/** Fields whose change alone makes a re-sent order a status update rather than a conflict. */
const STATUS_FIELDS = ['state', 'timestamp'] as const;

/** POST /v1/order: validate -> load history -> score -> decide -> one transaction -> respond. */
export async function placeOrder({
  body,
  merchantId,
  notify,
}: EndpointCall<OrderRequest>): Promise<Answer<OrderResponse>> {
  const now = receivedAt();
  const at = eventTime(body.timestamp, now);
  const fingerprint = eventFingerprint(body, STATUS_FIELDS);
  const identities = identitiesOfOrder(body);
  const orderKey = keys.order(merchantId, body.providerOrderId);
  const context = await loadDecisionContext({
    merchantId,
    notify,
    eventType: 'order',
    identities: identities.all,
    records: [orderKey],
    now: at,
  });
  const existing = context.item<StoredOrder>(orderKey);
  if (existing) return answerRepeat(existing, body, fingerprint);
  const orderValue = Number(body.totalPrice.amount);
  const time = identityTimeFacts(context.snapshots, identities.emails[0], at);
  const decision = decide(
    context.models,
    context.workflow,
    orderSignals({
      orderValue,
      at,
      cvvResultCodes: body.paymentInfo.flatMap((p) => (p.cvv_result_code ? [p.cvv_result_code] : [])),
      avsResultCodes: body.paymentInfo.flatMap((p) => (p.avs_result_code ? [p.avs_result_code] : [])),
      giftCardUsed: body.paymentInfo.some((p) => p.giftCardUsed === 'True' || p.instrument === 'GiftCard'),
      billingShippingMismatch:
        identities.billingAddresses.length > 0 &&
        identities.shippingAddresses.length > 0 &&
        !identities.shippingAddresses.some((s) =>
          identities.billingAddresses.some((b) => b.digest === s.digest),
        ),
      history: {
        emails: context.snapshotsOf(identities.emails),
        cards: context.snapshotsOf(identities.cards),
        devices: context.snapshotsOf(identities.devices),
        places: context.snapshotsOf([
          ...identities.billingAddresses,
          ...identities.shippingAddresses,
          ...identities.phones,
        ]),
        all: context.snapshots,
      },
      time,
    }),
    { ...orderFields(body), ...identityTimeFields(time) },
  );

  const serviceOrderId = newServiceId('ord');
  const timestamp = Number(body.timestamp);
  const order: StoredOrder = {
    merchantId,
    providerOrderId: body.providerOrderId,
    serviceOrderId,
    ...(body.providerCartId !== undefined ? { providerCartId: body.providerCartId } : {}),
    ...fingerprint,
    state: body.state,
    timestamp,
    currencyCode: body.totalPrice.currencyCode,
    orderValue,
    identities: identities.all.map((ref) => `${ref.kind}#${ref.digest}`),
    lineItems: body.lineItems.map((item) =>
      storedOrderLine({
        identifiers: item.identifiers.map(({ identifierType, identifier }) => ({
          identifierType,
          identifier,
        })),
        quantity: Number(item.quantity),
        unitPrice: Number(item.unitPrice.amount),
        category: item.category,
      }),
    ),
    decision,
    createdAt: new Date(now).toISOString(),
    eventAt: at,
  };
  const changes = new HistoryChanges()
    .addEach(identities.all, METRIC.orders, 1, at)
    .addEach(identities.all, METRIC.orderValue, orderValue, at)
    .linkAll(identities.all, at);

  const response = orderResponse(order);
  const outcome = await recordOrder(order, JSON.stringify(response), changes, context.items, now);
  if (!outcome.recorded) return answerRepeat(outcome.existing, body, fingerprint);
  recordDecisionMetric('order', decision.decision);
  return fresh(response);
}

/**
 * The cart's service id, derived from the order's (a hash: as opaque as a random one, and unique
 * with it), so the record need not keep a second random id to answer replays with.
 */
const serviceCartIdOf = (serviceOrderId: string) =>
  `cart_${createHash('sha256').update(serviceOrderId).digest('hex').slice(0, 32)}`;

/** The answer to an order, from its record: built the same way the first time and for every replay. */
function orderResponse(order: StoredOrder): OrderResponse {
  return {
    providerOrderID: order.providerOrderId,
    serviceOrderID: order.serviceOrderId,
    cartLevelDecisions: [
      {
        providerCartID: order.providerCartId ?? order.providerOrderId,
        serviceCartID: serviceCartIdOf(order.serviceOrderId),
        decisions: [toWireDecision(order.decision)],
      },
    ],
  };
}

async function answerRepeat(
  stored: StoredOrder,
  body: OrderRequest,
  fingerprint: { requestHash: string; stableHash: string },
): Promise<Answer<OrderResponse>> {
  switch (classifyRepeat(stored, fingerprint)) {
    case 'replay':
      return { response: orderResponse(stored), replayed: true };
    case 'status_update':
      await updateOrderState(stored.merchantId, stored.providerOrderId, body.state, Number(body.timestamp));
      return fresh(orderResponse(stored));
    case 'conflict':
      throw new ApiError(
        'duplicate_order',
        'An order with this providerOrderId was already recorded with a different body.',
        { field: 'providerOrderId' },
      );
  }
}
