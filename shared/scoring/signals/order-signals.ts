import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { type IdentityTimeFacts, identityTimeSignals } from './identity-time.ts';
import { fired, KIND_WORDS, maxCount, maxOtherLinks, plural, type Signals, saturating } from './signal.ts';
import { type WatchFacts, watchedIdentitySignals } from './watched-identity.ts';
import {
  freshAccountsSignal,
  ORDER_EMAIL_PACE_SECONDS,
  youngSharedIdentity,
} from './young-shared-identity.ts';

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

export function orderSignals(input: OrderScoringInput): Signals {
  const { history } = input;
  // The customer's own e-mail and card carry its chargebacks; a household's shared device or address
  // carries every member's, so there a lost chargeback says far less about this customer.
  const chargebacks = maxCount([...history.emails, ...history.cards], METRIC.lostChargebacks, 'd365');
  const nearby = maxCount([...history.devices, ...history.places], METRIC.lostChargebacks, 'd365');
  // A chargeback lands on every identity of its order: the customer's own ones are counted above.
  const chargebacksNearby = { count: Math.max(0, nearby.count - chargebacks.count), kind: nearby.kind };
  const abusiveReturns = maxCount(history.all, METRIC.abusiveReturns, 'd365');
  const openDisputes = maxCount(history.all, METRIC.openDisputes, 'lifetime');
  // Only the customer's own identifiers: an address or phone vouched for may be shared by strangers.
  const vouched = maxCount(
    [...history.emails, ...history.cards, ...history.devices],
    METRIC.legitimateReviews,
    'd365',
  );
  const ownEmails = history.emails.map((s) => s.ref);
  const cardEmails = maxOtherLinks(history.cards, 'email', ownEmails);
  const deviceEmails = maxOtherLinks(history.devices, 'email', ownEmails);
  const velocity = maxCount([...history.emails, ...history.cards, ...history.devices], METRIC.orders, 'h1');
  const priorOrders = maxCount(history.emails, METRIC.orders, 'lifetime').count;
  const priorValue = maxCount(history.emails, METRIC.orderValue, 'lifetime').count;
  const emailAge = input.time.ages.email;
  // Rings put cheap, fresh e-mails behind a few cards and devices: only a fresh e-mail counts here.
  const ring =
    emailAge >= 0 && emailAge <= ORDER_EMAIL_PACE_SECONDS
      ? youngSharedIdentity(
          [...history.cards, ...history.devices],
          'email',
          ownEmails,
          input.at,
          ORDER_EMAIL_PACE_SECONDS,
        )
      : undefined;
  const averageValue = priorOrders > 0 ? priorValue / priorOrders : 0;
  const valueRatio = averageValue > 0 ? input.orderValue / averageValue : 0;

  return fired({
    ...watchedIdentitySignals(input.watch),
    ...identityTimeSignals(input.time, {
      eventWord: 'order',
      young: 'email',
      counted: ['emailsPerDevice', 'cardsPerDevice', 'emailsPerCard'],
    }),
    lostChargebacksOnIdentities:
      chargebacks.count > 0
        ? {
            value: saturating(chargebacks.count),
            evidence: `${plural(chargebacks.count, 'lost chargeback')} on this ${KIND_WORDS[chargebacks.kind ?? ''] ?? 'identity'} in 365 days`,
          }
        : undefined,
    lostChargebacksOnSharedIdentities:
      chargebacksNearby.count > 0
        ? {
            value: saturating(chargebacksNearby.count),
            evidence: `${plural(chargebacksNearby.count, 'other lost chargeback')} on this ${KIND_WORDS[chargebacksNearby.kind ?? ''] ?? 'identity'} in 365 days`,
          }
        : undefined,
    freshAccountsOnYoungIdentity: freshAccountsSignal(ring, 'email'),
    abusiveReturnsOnIdentities:
      abusiveReturns.count > 0
        ? {
            value: saturating(abusiveReturns.count),
            evidence: `${plural(abusiveReturns.count, 'abusive return')} on this ${KIND_WORDS[abusiveReturns.kind ?? ''] ?? 'identity'} in 365 days`,
          }
        : undefined,
    openDisputesOnIdentities:
      openDisputes.count > 0
        ? {
            value: saturating(openDisputes.count),
            evidence: `${plural(openDisputes.count, 'open dispute')} on this ${KIND_WORDS[openDisputes.kind ?? ''] ?? 'identity'}`,
          }
        : undefined,
    cardSharedAcrossEmails:
      cardEmails > 0
        ? {
            value: saturating(cardEmails),
            evidence: `card used with ${plural(cardEmails, 'other e-mail')}`,
          }
        : undefined,
    deviceSharedAcrossEmails:
      deviceEmails > 0
        ? {
            value: saturating(deviceEmails),
            evidence: `device used with ${plural(deviceEmails, 'other e-mail')}`,
          }
        : undefined,
    ordersLastHourOnIdentities:
      velocity.count > 1
        ? {
            value: saturating(velocity.count - 1),
            evidence: `${plural(velocity.count, 'order')} on this ${KIND_WORDS[velocity.kind ?? ''] ?? 'identity'} in the last hour`,
          }
        : undefined,
    newCustomer: priorOrders === 0 ? { value: 1, evidence: 'first order from this e-mail' } : undefined,
    billingShippingMismatch: input.billingShippingMismatch
      ? { value: 1, evidence: 'billing and shipping addresses differ' }
      : undefined,
    cvvMismatch: input.cvvResultCodes.some((c) => CVV_FAILED.has(c.toUpperCase()))
      ? { value: 1, evidence: 'CVV check failed' }
      : undefined,
    avsMismatch: input.avsResultCodes.some((c) => AVS_FAILED.has(c.toUpperCase()))
      ? { value: 1, evidence: 'address verification failed' }
      : undefined,
    giftCardUsed: input.giftCardUsed ? { value: 1, evidence: 'paid with a gift card' } : undefined,
    legitimateReviewsOnIdentities:
      vouched.count > 0
        ? {
            value: saturating(vouched.count),
            evidence: `${plural(vouched.count, 'review')} on this ${KIND_WORDS[vouched.kind ?? ''] ?? 'identity'} resolved as legitimate in 365 days`,
          }
        : undefined,
    orderValueVsHistory:
      valueRatio > 2
        ? {
            value: Math.min(3, Math.log2(valueRatio)),
            evidence: `order value ${valueRatio.toFixed(1)}x this customer's average`,
          }
        : undefined,
  });
}
