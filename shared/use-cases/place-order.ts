import { createHash } from 'node:crypto';
import type { ResponseOf } from '../contract/endpoints.ts';
import type { DigestIdentity, IdentityRef } from '../identity/identities.ts';
import { METRIC } from '../identity/metrics.ts';
import { identitiesOfOrder, type OrderIdentities } from '../identity/order-identities.ts';
import { newServiceId } from '../ids.ts';
import type { OrderRequest } from '../schemas/order.ts';
import { decide, toWireDecision } from '../scoring/decide.ts';
import { listVerdict } from '../scoring/lists.ts';
import { namedHousehold } from '../scoring/signals/household.ts';
import {
  identityTimeFacts,
  identityTimeFields,
  scriptSpeedAfterFirstSighting,
} from '../scoring/signals/identity-time.ts';
import { orderSignals } from '../scoring/signals/order-signals.ts';
import { SILENT_BELOW } from '../scoring/signals/signal.ts';
import { watchFacts } from '../scoring/signals/watched-identity.ts';
import { orderFields } from '../scoring/variables.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { keys } from '../store/keys.ts';
import { type OrderRecord, storedOrderLine, updateOrderState } from '../store/orders.ts';
import { type Evaluation, scoredEventUseCase } from './scored-event.ts';
import type { EndpointCall } from './use-case.ts';

type OrderResponse = ResponseOf<'order'>;

/**
 * POST /v1/order through the scored-event pipeline (scored-event.ts): an order reads and moves the
 * history of its e-mails, cards, devices, addresses and phones, is recorded under its
 * `providerOrderId`, and a re-sent order that differs only in `state`/`timestamp` updates its state.
 */
export const placeOrder = scoredEventUseCase('order', {
  plan: ({ body }: EndpointCall<OrderRequest>, identity: DigestIdentity) => {
    const roles = identitiesOfOrder(body, identity);
    return { identities: roles.all, roles };
  },
  evaluate: evaluateOrder,
  readsNetwork: true,
  recorded: {
    key: (merchantId, body) => keys.order(merchantId, body.providerOrderId),
    answer: (stored) => orderResponse(stored as unknown as OrderRecord),
    statusUpdate: (stored, body) =>
      updateOrderState(String(stored.merchantId), body.providerOrderId, body.state, Number(body.timestamp)),
  },
});

function evaluateOrder(evaluation: Evaluation<'order', { roles: OrderIdentities }>) {
  const { call, plan, context, at, now, fingerprint } = evaluation;
  const { body, merchantId } = call;
  const { roles } = plan;
  const orderValue = Number(body.totalPrice.amount);
  const time = identityTimeFacts(context.snapshots, roles.emails[0], at);
  const emails = context.snapshotsOf(roles.emails);
  const devices = context.snapshotsOf(roles.devices);
  const household = namedHousehold(
    roles.name,
    devices,
    context.snapshotsOf(roles.shippingAddresses),
    emails.some((email) => email.count(METRIC.householdNamedOrders).lifetime > 0),
  );
  const decision = decide(
    context.models,
    context.workflow,
    orderSignals({
      orderValue,
      at,
      // In card-not-present fraud the billing address is the cardholder's: watched, it says nothing.
      watch: watchFacts(
        'order',
        context.snapshotsOf([
          ...roles.emails,
          ...roles.cards,
          ...roles.devices,
          ...roles.shippingAddresses,
          ...roles.phones,
        ]),
        emails,
        'e-mail',
        at,
        household,
      ),
      cvvResultCodes: body.paymentInfo.flatMap((p) => (p.cvv_result_code ? [p.cvv_result_code] : [])),
      avsResultCodes: body.paymentInfo.flatMap((p) => (p.avs_result_code ? [p.avs_result_code] : [])),
      giftCardUsed: body.paymentInfo.some((p) => p.giftCardUsed === 'True' || p.instrument === 'GiftCard'),
      billingShippingMismatch: billingShippingMismatch(roles),
      history: {
        emails,
        cards: context.snapshotsOf(roles.cards),
        devices,
        places: context.snapshotsOf([...roles.billingAddresses, ...roles.shippingAddresses, ...roles.phones]),
        all: context.snapshots,
      },
      time,
      network: context.network,
    }),
    { ...orderFields(body), ...identityTimeFields(time) },
    { ...context.policy, lists: listVerdict('order', context.snapshots, emails) },
  );

  const key = keys.order(merchantId, body.providerOrderId);
  const order: OrderRecord = {
    merchantId,
    providerOrderId: body.providerOrderId,
    serviceOrderId: newServiceId('ord'),
    ...(body.providerCartId !== undefined ? { providerCartId: body.providerCartId } : {}),
    ...fingerprint,
    state: body.state,
    timestamp: Number(body.timestamp),
    currencyCode: body.totalPrice.currencyCode,
    orderValue,
    identities: roles.all.map((ref) => `${ref.kind}#${ref.digest}`),
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
    .addEach(roles.all, METRIC.orders, 1, at)
    .addEach(roles.all, METRIC.orderValue, orderValue, at)
    .linkAll(roles.all, at);
  recordNames(changes, roles, household.length > 0, at);
  recordScriptedOrder(changes, roles.devices, scriptSpeedAfterFirstSighting(emails, at), at);
  return {
    write: {
      target: { eventType: 'order' as const, key, eventId: body.providerOrderId },
      record: order,
      decisions: decision,
      changes,
    },
    response: orderResponse(order),
  };
}

/**
 * An order sent seconds after its e-mail first appeared marks its devices, weighed by how fast: the
 * next accounts opened on them read it (signup-signals.ts). The devices' items are written anyway.
 */
function recordScriptedOrder(
  changes: HistoryChanges,
  devices: readonly IdentityRef[],
  speed: number,
  at: number,
) {
  if (speed < SILENT_BELOW) return;
  changes.addEach(devices, METRIC.scriptedOrders, speed, at);
  for (const device of devices) changes.stamp(device, METRIC.scriptedOrders, at);
}

/**
 * The devices keep the customer's surname and whole name (no item of their own), so that the next
 * person ordering there under the surname reads as the household's (household.ts); an e-mail named a
 * member keeps that it was.
 */
function recordNames(changes: HistoryChanges, roles: OrderIdentities, named: boolean, at: number) {
  const { surname, fullName } = roles.name;
  const names = [...(surname ? [surname] : []), ...(fullName ? [fullName] : [])];
  if (names.length > 0) for (const device of roles.devices) changes.link(device, names, at);
  if (named) changes.addEach(roles.emails, METRIC.householdNamedOrders, 1, at);
}

/** Billing and shipping addresses both given, and none of them the same. */
const billingShippingMismatch = (roles: OrderIdentities) =>
  roles.billingAddresses.length > 0 &&
  roles.shippingAddresses.length > 0 &&
  !roles.shippingAddresses.some((s) => roles.billingAddresses.some((b) => b.digest === s.digest));

/**
 * The cart's service id, derived from the order's (a hash: as opaque as a random one, and unique
 * with it), so the record need not keep a second random id to answer replays with.
 */
const serviceCartIdOf = (serviceOrderId: string) =>
  `cart_${createHash('sha256').update(serviceOrderId).digest('hex').slice(0, 32)}`;

/**
 * The answer to an order, from its record: built the same way the first time and for every replay
 * (the record keeps no copy of it: 400 bytes less per order).
 */
function orderResponse(
  order: Pick<OrderRecord, 'providerOrderId' | 'serviceOrderId' | 'providerCartId' | 'decision'>,
): OrderResponse {
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
