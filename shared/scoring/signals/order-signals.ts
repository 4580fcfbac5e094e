import { sameIdentity } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import type { NetworkReputation } from '../network-reputation.ts';
import { orderHousehold } from './household.ts';
import type { IdentityTimeFacts } from './identity-time.ts';
import {
  newIdentitiesAroundLastHour,
  scriptSpeedAfterPreviousEvent,
  youngIdentity,
} from './identity-time.ts';
import { networkConfirmedAbuse, networkNewMerchantsLastDay } from './network-signals.ts';
import type { SignalDeclaration, Signals } from './signal.ts';
import { declareSignal, fadeAround, maxCount, perEvent, SILENT_BELOW, signalsOf } from './signal.ts';
import { flagSignal, mostOnIdentities, othersLinked } from './signal-shapes.ts';
import {
  type WatchFacts,
  watchedIdentityKnownCustomer,
  watchedIdentityNewCustomer,
} from './watched-identity.ts';
import { freshAccountsOnYoungIdentity, ORDER_EMAIL_PACE_SECONDS } from './young-shared-identity.ts';

/** What scoring needs to know about an order: facts from the request and its identities' history. */
export interface OrderScoringInput {
  /** The event's identities on the watch list, and when its customer was first seen. */
  watch?: WatchFacts;
  orderValue: number;
  /** The order's own time (epoch ms): identity ages are read as of it. */
  at: number;
  cvvResultCodes: readonly string[];
  avsResultCodes: readonly string[];
  giftCardUsed: boolean;
  billingShippingMismatch: boolean;
  /** Ages, time since the previous event and velocity, at the event's own time. */
  time: IdentityTimeFacts;
  /** A network member's card, device and e-mail as other members know them; absent otherwise. */
  network?: readonly NetworkReputation[] | undefined;
  history: {
    emails: readonly IdentitySnapshot[];
    cards: readonly IdentitySnapshot[];
    devices: readonly IdentitySnapshot[];
    /** Addresses and phones: shared by households and parcel lockers, never the customer's alone. */
    places: readonly IdentitySnapshot[];
    all: readonly IdentitySnapshot[];
  };
}

/** Processor result codes that mean the check failed (Visa/Mastercard conventions). */
const CVV_FAILED = new Set(['N']);
const AVS_FAILED = new Set(['N', 'C']);

const ownEmails = ({ history }: OrderScoringInput) => history.emails.map((s) => s.ref);
/** Orders and their value before this one, on the order's e-mail. */
const priorOrders = perEvent(({ history }: OrderScoringInput) => ({
  count: maxCount(history.emails, METRIC.orders, 'lifetime').count,
  value: maxCount(history.emails, METRIC.orderValue, 'lifetime').count,
}));

// The customer's own e-mail and card carry its chargebacks; a household's shared device or address
// carries every member's, so there a lost chargeback says far less about this customer.
const lostChargebacksOnIdentities = mostOnIdentities('lostChargebacksOnIdentities', {
  identities: ({ history }: OrderScoringInput) => [...history.emails, ...history.cards],
  metric: METRIC.lostChargebacks,
  except: METRIC.lostServiceDisputes,
  window: 'd365',
  event: 'lost chargeback',
});

/**
 * A customer whose e-mail has ordered here for a week or more is established on its device and
 * address: what others did on those (a household member's chargeback, its other e-mails) says less
 * and less about it as it ages, fading around a week (fadeAround). Rings come back on them with
 * fresh e-mails, one or a few orders each.
 */
const ESTABLISHED_SECONDS = 7 * 86_400;
const notYetEstablished = ({ time }: OrderScoringInput) =>
  time.ages.email < 0 ? 1 : fadeAround(time.ages.email, ESTABLISHED_SECONDS);
/** The order's e-mail is fresh enough for the order to be part of a ring's wave (it has none: 0). */
const freshEmail = ({ time }: OrderScoringInput) =>
  time.ages.email < 0 ? 0 : fadeAround(time.ages.email, ORDER_EMAIL_PACE_SECONDS);

const YEAR_MS = 365 * 86_400_000;
/**
 * The lost chargeback that put a shared identity on the watch list within the year: the watch
 * signals read that one (weighed by how new the customer is to it), so the count of other lost
 * chargebacks on the identity leaves it out and counts only the ones beyond it.
 */
const chargebackReadByWatch =
  ({ watch, at }: OrderScoringInput) =>
  (identity: IdentitySnapshot) =>
    watch?.watched.some(
      (hit) =>
        hit.marker.note.cause === 'chargeback' &&
        hit.marker.since > at - YEAR_MS &&
        sameIdentity(hit.identity.ref, identity.ref),
    )
      ? 1
      : 0;

/** Other e-mails on the order's device its household explains (household.ts). */
const householdOf = perEvent(({ history }: OrderScoringInput) =>
  orderHousehold(history.places, history.devices),
);

/** The order's signals, in the order a decision records them. */
export const ORDER_SIGNALS = [
  watchedIdentityNewCustomer,
  watchedIdentityKnownCustomer,
  scriptSpeedAfterPreviousEvent('order'),
  youngIdentity('email'),
  newIdentitiesAroundLastHour(['emailsPerDevice', 'cardsPerDevice', 'emailsPerCard']),
  lostChargebacksOnIdentities,
  mostOnIdentities('lostChargebacksOnSharedIdentities', {
    identities: ({ history }: OrderScoringInput) => [...history.devices, ...history.places],
    weight: notYetEstablished,
    // A chargeback lands on every identity of its order: the customer's own ones are counted above.
    less: lostChargebacksOnIdentities.most,
    metric: METRIC.lostChargebacks,
    except: METRIC.lostServiceDisputes,
    readElsewhere: chargebackReadByWatch,
    window: 'd365',
    event: 'other lost chargeback',
  }),
  freshAccountsOnYoungIdentity({
    // Rings put cheap, fresh e-mails behind a few cards and devices: only a fresh e-mail counts here.
    weight: freshEmail,
    holders: ({ history }: OrderScoringInput) => [...history.cards, ...history.devices],
    counted: 'email',
    own: ownEmails,
    paceSeconds: ORDER_EMAIL_PACE_SECONDS,
    household: householdOf,
  }),
  mostOnIdentities('abusiveReturnsOnIdentities', {
    identities: ({ history }: OrderScoringInput) => history.all,
    metric: METRIC.abusiveReturns,
    window: 'd365',
    event: 'abusive return',
  }),
  mostOnIdentities('openDisputesOnIdentities', {
    identities: ({ history }: OrderScoringInput) => history.all,
    metric: METRIC.openDisputes,
    window: 'lifetime',
    event: 'open dispute',
  }),
  othersLinked('cardSharedAcrossEmails', {
    holders: ({ history }: OrderScoringInput) => history.cards,
    counted: 'email',
    own: ownEmails,
    words: 'card used with',
  }),
  othersLinked('deviceSharedAcrossEmails', {
    holders: ({ history }: OrderScoringInput) => history.devices,
    weight: notYetEstablished,
    explained: householdOf,
    counted: 'email',
    own: ownEmails,
    words: 'device used with',
  }),
  mostOnIdentities('ordersLastHourOnIdentities', {
    identities: ({ history }: OrderScoringInput) => [...history.emails, ...history.cards, ...history.devices],
    metric: METRIC.orders,
    window: 'h1',
    event: 'order',
    allowance: 1,
  }),
  flagSignal(
    'newCustomer',
    (input: OrderScoringInput) => priorOrders(input).count === 0,
    'first order from this e-mail',
  ),
  flagSignal(
    'billingShippingMismatch',
    (input: OrderScoringInput) => input.billingShippingMismatch,
    'billing and shipping addresses differ',
  ),
  flagSignal(
    'cvvMismatch',
    (input: OrderScoringInput) => input.cvvResultCodes.some((c) => CVV_FAILED.has(c.toUpperCase())),
    'CVV check failed',
  ),
  flagSignal(
    'avsMismatch',
    (input: OrderScoringInput) => input.avsResultCodes.some((c) => AVS_FAILED.has(c.toUpperCase())),
    'address verification failed',
  ),
  flagSignal('giftCardUsed', (input: OrderScoringInput) => input.giftCardUsed, 'paid with a gift card'),
  mostOnIdentities('legitimateReviewsOnIdentities', {
    // Only the customer's own identifiers: an address or phone vouched for may be shared by strangers.
    identities: ({ history }: OrderScoringInput) => [...history.emails, ...history.cards, ...history.devices],
    metric: METRIC.legitimateReviews,
    window: 'd365',
    event: 'review',
    qualifier: 'resolved as legitimate',
  }),
  networkConfirmedAbuse,
  networkNewMerchantsLastDay,
  declareSignal('orderValueVsHistory', (input: OrderScoringInput) => {
    const prior = priorOrders(input);
    const averageValue = prior.count > 0 ? prior.value / prior.count : 0;
    const valueRatio = averageValue > 0 ? input.orderValue / averageValue : 0;
    // 0 at twice the average (a customer's basket varies that much), 2 at four times, 3 from 5.7.
    const value = valueRatio > 0 ? Math.min(3, 2 * Math.log2(valueRatio / 2)) : 0;
    if (value < SILENT_BELOW) return undefined;
    return {
      value,
      evidence: `order value ${valueRatio.toFixed(1)}x this customer's average`,
    };
  }),
] as const satisfies readonly SignalDeclaration<OrderScoringInput>[];

export function orderSignals(input: OrderScoringInput): Signals {
  return signalsOf(ORDER_SIGNALS, input);
}
