import type { IdentityRef } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { fired, KIND_WORDS, maxCount, maxOtherLinks, plural, type Signals, saturating } from './signal.ts';
import { type WatchFacts, watchedIdentitySignals } from './watched-identity.ts';

/** What scoring needs to know about one returned line item: the return, the item, the history. */
export interface ReturnScoringInput {
  /** The event's identities on the watch list, and when its customer was first seen. */
  watch?: WatchFacts;
  refundMode: string;
  daysSinceOrder: number;
  item: {
    category: string;
    /** Value of the units returned on this line (the order's unit price times the quantity). */
    value: number;
    quantity: number;
    unitsBought: number;
    /** Units of the same order line returned before: earlier returns and earlier lines of this one. */
    unitsReturnedBefore: number;
  };
  history: {
    /** The customer: the order's e-mails and payment instruments. */
    customer: readonly IdentitySnapshot[];
    /** The devices the return itself was sent from. */
    returnDevices: readonly IdentitySnapshot[];
    /** Every identity of the order and of the return. */
    all: readonly IdentitySnapshot[];
  };
  ownEmails: readonly IdentityRef[];
}

/** Categories where resale value makes abuse pay (wardrobing, swaps, empty boxes). */
const HIGH_VALUE_CATEGORY_WORDS = [
  'electronic',
  'computer',
  'laptop',
  'phone',
  'camera',
  'console',
  'gaming',
  'jewel',
  'watch',
  'luxury',
  'designer',
  'handbag',
  'sneaker',
] as const;

/** A rate over one or two returns says little; below this many prior returns it stays silent. */
const MIN_PRIOR_RETURNS_FOR_RATE = 2;
const RATE_THRESHOLD = 0.5;
const HIGH_ITEM_VALUE = 500;
const LATE_RETURN_DAYS = 30;

export function isHighValueCategory(category: string): boolean {
  const lowered = category.toLowerCase();
  return HIGH_VALUE_CATEGORY_WORDS.some((word) => lowered.includes(word));
}

export function returnSignals(input: ReturnScoringInput): Signals {
  const { history, item } = input;
  const abusiveReturns = maxCount(history.all, METRIC.abusiveReturns, 'd365');
  const chargebacks = maxCount(history.all, METRIC.lostChargebacks, 'd365');
  const openDisputes = maxCount(history.all, METRIC.openDisputes, 'lifetime');
  const customerAndDevices = [...history.customer, ...history.returnDevices];
  const returns30 = maxCount(customerAndDevices, METRIC.returns, 'd30');
  const returns365 = maxCount(customerAndDevices, METRIC.returns, 'd365');
  const countRate = returnRate(history.customer, METRIC.returns, METRIC.orders);
  const valueRate = returnRate(history.customer, METRIC.returnValue, METRIC.orderValue);
  const deviceEmails = maxOtherLinks(history.returnDevices, 'email', input.ownEmails);
  const unitsReturned = item.unitsReturnedBefore + item.quantity;
  const on = (kind: string | undefined) => `on this ${KIND_WORDS[kind ?? ''] ?? 'identity'}`;

  return fired({
    ...watchedIdentitySignals(input.watch),
    moreUnitsReturnedThanBought:
      unitsReturned > item.unitsBought
        ? { value: 1, evidence: `${unitsReturned} units returned of ${item.unitsBought} bought` }
        : undefined,
    abusiveReturnsOnIdentities:
      abusiveReturns.count > 0
        ? {
            value: saturating(abusiveReturns.count),
            evidence: `${plural(abusiveReturns.count, 'abusive return')} ${on(abusiveReturns.kind)} in 365 days`,
          }
        : undefined,
    lostChargebacksOnIdentities:
      chargebacks.count > 0
        ? {
            value: saturating(chargebacks.count),
            evidence: `${plural(chargebacks.count, 'lost chargeback')} ${on(chargebacks.kind)} in 365 days`,
          }
        : undefined,
    openDisputesOnIdentities:
      openDisputes.count > 0
        ? {
            value: saturating(openDisputes.count),
            evidence: `${plural(openDisputes.count, 'open dispute')} ${on(openDisputes.kind)}`,
          }
        : undefined,
    returnsLast30Days:
      returns30.count > 0
        ? {
            value: saturating(returns30.count),
            evidence: `${plural(returns30.count, 'return')} ${on(returns30.kind)} in 30 days`,
          }
        : undefined,
    returnsLast365Days:
      returns365.count > 2
        ? {
            value: saturating(returns365.count - 2),
            evidence: `${plural(returns365.count, 'return')} ${on(returns365.kind)} in 365 days`,
          }
        : undefined,
    returnRateByCount:
      countRate.rate >= RATE_THRESHOLD
        ? {
            value: Math.min(2, countRate.rate),
            evidence: `${Math.round(countRate.rate * 100)}% of orders returned ${on(countRate.kind)}`,
          }
        : undefined,
    returnRateByValue:
      valueRate.rate >= RATE_THRESHOLD
        ? {
            value: Math.min(2, valueRate.rate),
            evidence: `${Math.round(valueRate.rate * 100)}% of order value returned ${on(valueRate.kind)}`,
          }
        : undefined,
    lateReturn:
      input.daysSinceOrder > LATE_RETURN_DAYS
        ? {
            value: Math.min(2, (input.daysSinceOrder - LATE_RETURN_DAYS) / LATE_RETURN_DAYS),
            evidence: `returned ${Math.floor(input.daysSinceOrder)} days after the order`,
          }
        : undefined,
    highValueCategory: isHighValueCategory(item.category)
      ? { value: 1, evidence: `high-value category ${item.category}` }
      : undefined,
    highValueItem:
      item.value >= HIGH_ITEM_VALUE
        ? { value: Math.min(2, Math.log2(item.value / (HIGH_ITEM_VALUE / 2))), evidence: 'high-value item' }
        : undefined,
    refundToOriginalPayment:
      input.refundMode === 'ORIGINAL_PAYMENT'
        ? { value: 1, evidence: 'refund to the original payment' }
        : undefined,
    // An exchange keeps the value with the merchant: it lowers the score (negative weight), never named.
    refundAsExchange: input.refundMode === 'EXCHANGE' ? { value: 1, evidence: 'exchange' } : undefined,
    returnDeviceSharedAcrossEmails:
      deviceEmails > 0
        ? {
            value: saturating(deviceEmails),
            evidence: `return device used with ${plural(deviceEmails, 'other e-mail')}`,
          }
        : undefined,
  });
}

/** Highest share of orders (by count or value) returned on one customer identity, before this return. */
function returnRate(
  snapshots: readonly IdentitySnapshot[],
  returnedMetric: string,
  orderedMetric: string,
): { rate: number; kind: string | undefined } {
  let best = { rate: 0, kind: undefined as string | undefined };
  for (const snapshot of snapshots) {
    if (snapshot.count(METRIC.returns).lifetime < MIN_PRIOR_RETURNS_FOR_RATE) continue;
    const ordered = snapshot.count(orderedMetric).lifetime;
    if (ordered <= 0) continue;
    const rate = snapshot.count(returnedMetric).lifetime / ordered;
    if (rate > best.rate) best = { rate, kind: snapshot.ref.kind };
  }
  return best;
}
