import type { IdentityRef } from '../../identity/identities.ts';
import { METRIC } from '../../identity/metrics.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { orderHousehold } from './household.ts';
import type { SignalDeclaration, Signals } from './signal.ts';
import { clampUnit, declareSignal, kindWord, SILENT_BELOW, signalsOf } from './signal.ts';
import { flagSignal, mostOnIdentities, othersLinked } from './signal-shapes.ts';
import {
  type WatchFacts,
  watchedIdentityKnownCustomer,
  watchedIdentityNewCustomer,
} from './watched-identity.ts';

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
export const HIGH_VALUE_CATEGORY_WORDS = [
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

/**
 * A return rate means something from a few returns and from about half the orders: the rate's value
 * rises from 0 at a quarter (`RATE_THRESHOLD` / 2) to the rate itself at `RATE_THRESHOLD`, and counts
 * fully from `MIN_PRIOR_RETURNS_FOR_RATE` + 1 returns (none at 1, half at 2): one return of one
 * order is not a habit.
 */
export const MIN_PRIOR_RETURNS_FOR_RATE = 2;
export const RATE_THRESHOLD = 0.5;
/** An item at this value counts 1, twice it 2; from half of it the signal rises from 0. */
export const HIGH_ITEM_VALUE = 500;
export const LATE_RETURN_DAYS = 30;

function isHighValueCategory(category: string): boolean {
  const lowered = category.toLowerCase();
  return HIGH_VALUE_CATEGORY_WORDS.some((word) => lowered.includes(word));
}

const everyIdentity = ({ history }: ReturnScoringInput) => history.all;
const customerAndDevices = ({ history }: ReturnScoringInput) => [
  ...history.customer,
  ...history.returnDevices,
];

/** The share of orders (by count or value) returned on the customer, weighed as above. */
const returnRateSignal = <Name extends string>(
  name: Name,
  returned: string,
  ordered: string,
  words: string,
) =>
  declareSignal(name, ({ history }: ReturnScoringInput) => {
    const { rate, kind, value } = returnRate(history.customer, returned, ordered);
    if (value < SILENT_BELOW) return undefined;
    return {
      value,
      evidence: `${Math.round(rate * 100)}% of ${words} on this ${kindWord(kind)}`,
    };
  });

/** A returned line item's signals, in the order a decision records them. */
export const RETURN_SIGNALS = [
  watchedIdentityNewCustomer,
  watchedIdentityKnownCustomer,
  declareSignal('moreUnitsReturnedThanBought', ({ item }: ReturnScoringInput) => {
    const unitsReturned = item.unitsReturnedBefore + item.quantity;
    if (unitsReturned <= item.unitsBought) return undefined;
    return { value: 1, evidence: `${unitsReturned} units returned of ${item.unitsBought} bought` };
  }),
  mostOnIdentities('abusiveReturnsOnIdentities', {
    identities: everyIdentity,
    metric: METRIC.abusiveReturns,
    window: 'd365',
    event: 'abusive return',
  }),
  mostOnIdentities('lostChargebacksOnIdentities', {
    identities: everyIdentity,
    metric: METRIC.lostChargebacks,
    except: METRIC.lostServiceDisputes,
    window: 'd365',
    event: 'lost chargeback',
  }),
  mostOnIdentities('openDisputesOnIdentities', {
    identities: everyIdentity,
    metric: METRIC.openDisputes,
    window: 'lifetime',
    event: 'open dispute',
  }),
  mostOnIdentities('returnsLast30Days', {
    identities: customerAndDevices,
    metric: METRIC.returns,
    window: 'd30',
    event: 'return',
  }),
  mostOnIdentities('returnsLast365Days', {
    identities: customerAndDevices,
    metric: METRIC.returns,
    window: 'd365',
    event: 'return',
    allowance: 2,
  }),
  returnRateSignal('returnRateByCount', METRIC.returns, METRIC.orders, 'orders returned'),
  returnRateSignal('returnRateByValue', METRIC.returnValue, METRIC.orderValue, 'order value returned'),
  declareSignal('lateReturn', ({ daysSinceOrder }: ReturnScoringInput) =>
    daysSinceOrder > LATE_RETURN_DAYS
      ? {
          value: Math.min(2, (daysSinceOrder - LATE_RETURN_DAYS) / LATE_RETURN_DAYS),
          evidence: `returned ${Math.floor(daysSinceOrder)} days after the order`,
        }
      : undefined,
  ),
  flagSignal(
    'highValueCategory',
    ({ item }: ReturnScoringInput) => isHighValueCategory(item.category),
    ({ item }) => `high-value category ${item.category}`,
  ),
  declareSignal('highValueItem', ({ item }: ReturnScoringInput) => {
    const value = item.value > 0 ? Math.min(2, Math.log2(item.value / (HIGH_ITEM_VALUE / 2))) : 0;
    return value >= SILENT_BELOW ? { value, evidence: 'high-value item' } : undefined;
  }),
  flagSignal(
    'refundToOriginalPayment',
    (input: ReturnScoringInput) => input.refundMode === 'ORIGINAL_PAYMENT',
    'refund to the original payment',
  ),
  // An exchange keeps the value with the merchant: it lowers the score (negative weight), never named.
  flagSignal('refundAsExchange', (input: ReturnScoringInput) => input.refundMode === 'EXCHANGE', 'exchange'),
  othersLinked('returnDeviceSharedAcrossEmails', {
    holders: ({ history }: ReturnScoringInput) => history.returnDevices,
    counted: 'email',
    own: (input) => input.ownEmails,
    words: 'return device used with',
    // A family returns from its shared tablet too: the order's address and the return's device show
    // the home as an order's do.
    explained: ({ history }) => orderHousehold(history.all, history.returnDevices),
  }),
] as const satisfies readonly SignalDeclaration<ReturnScoringInput>[];

export function returnSignals(input: ReturnScoringInput): Signals {
  return signalsOf(RETURN_SIGNALS, input);
}

/** The return rate's value on one customer identity, the most over them, before this return. */
function returnRate(
  snapshots: readonly IdentitySnapshot[],
  returnedMetric: string,
  orderedMetric: string,
): { rate: number; kind: string | undefined; value: number } {
  let best = { rate: 0, kind: undefined as string | undefined, value: 0 };
  for (const snapshot of snapshots) {
    const ordered = snapshot.count(orderedMetric).lifetime;
    if (ordered <= 0) continue;
    const rate = snapshot.count(returnedMetric).lifetime / ordered;
    const returns = snapshot.count(METRIC.returns).lifetime;
    const habit = clampUnit((returns - 1) / MIN_PRIOR_RETURNS_FOR_RATE);
    const share = clampUnit((rate - RATE_THRESHOLD / 2) / (RATE_THRESHOLD / 2));
    const value = habit * share * Math.min(2, rate);
    if (value > best.value) best = { rate, kind: snapshot.ref.kind, value };
  }
  return best;
}
