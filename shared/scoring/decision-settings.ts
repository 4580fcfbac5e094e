import type { EventType } from '../contract/endpoints.ts';

/**
 * What a merchant's decisions cost it, per event type, and the good-customer budget that guards
 * them: the numbers the default workflows' thresholds follow from (decision-thresholds.ts).
 * Amounts are in the merchant's own currency, the one its events carry: nothing is converted. Pure;
 * validation lives with the management API's schemas (shared/schemas/decision-settings.ts).
 */
export interface DecisionSettings {
  /** What one manual review costs (an analyst's time). */
  reviewCost: number;
  /** Reviews a day (UTC) the merchant's team can work; once used up, the default rules stop reviewing. */
  reviewCapacityPerDay: number;
  /** The good-customer budget: at most this share of good events declined ... */
  maxGoodDeclinedShare: number;
  /** ... and at most this share reviewed. */
  maxGoodReviewedShare: number;
  /** Orders: the margin lost with a good sale that is declined (0-1). */
  grossMargin?: number;
  /** Orders: the network's and processor's fee on a chargeback, on top of the goods lost. */
  chargebackFee?: number;
  /** Returns: the share of an abusive return's value that is lost (refund paid, little resold). */
  abusiveReturnLossShare?: number;
  /** Returns and accounts: what refusing a good customer costs (support, lost future margin). */
  goodCustomerDeclineCost?: number;
  /** Signups, logins, account changes: what an abusive account costs (promotions, stolen value, recovery). */
  abusiveAccountCost?: number;
}

export type SettingName = keyof DecisionSettings;

const COMMON_SETTINGS = [
  'reviewCost',
  'reviewCapacityPerDay',
  'maxGoodDeclinedShare',
  'maxGoodReviewedShare',
] as const satisfies readonly SettingName[];

const ACCOUNT_ECONOMICS = ['abusiveAccountCost', 'goodCustomerDeclineCost'] as const;

/** The economics of each event type, beside the settings every type has. */
const ECONOMICS_SETTINGS = {
  order: ['grossMargin', 'chargebackFee'],
  return: ['abusiveReturnLossShare', 'goodCustomerDeclineCost'],
  signup: ACCOUNT_ECONOMICS,
  login: ACCOUNT_ECONOMICS,
  account: ACCOUNT_ECONOMICS,
} as const satisfies Record<EventType, readonly SettingName[]>;

export const settingNamesOf = (eventType: EventType): readonly SettingName[] => [
  ...COMMON_SETTINGS,
  ...ECONOMICS_SETTINGS[eventType],
];

/** The good-customer budget every merchant starts with (Radar's false-decline rate is about 0.1 %). */
export const DEFAULT_BUDGET: Readonly<
  Pick<DecisionSettings, 'maxGoodDeclinedShare' | 'maxGoodReviewedShare'>
> = {
  maxGoodDeclinedShare: 0.005,
  maxGoodReviewedShare: 0.02,
};

/**
 * Defaults, and why:
 * - a review costs 5: about five minutes of an analyst at a loaded 60 an hour;
 * - 100 reviews a day: one analyst's day at five minutes a case, what a small team staffs first;
 * - orders: a 30 % gross margin (general retail), a chargeback fee of 15 (networks and processors
 *   charge 15-25; the goods are counted apart, as the order's value);
 * - returns: 60 % of an abusive return's value lost (an empty box loses all of it, a worn or
 *   wardrobed item is resold at a markdown);
 * - signups, logins, account changes: 200 for an abusive account (promotion abuse, stolen stored
 *   value, the cost of recovering a taken-over account);
 * - refusing a good customer (returns, accounts): 40, a support contact plus the share of future
 *   margin a customer refused is likely to take elsewhere. With a review at 5 it puts the DECLINE
 *   cut at 1 - 5/40 = 87.5 %, where the default workflows declined before (85).
 */
const COMMON_DEFAULTS = { reviewCost: 5, reviewCapacityPerDay: 100, ...DEFAULT_BUDGET };
const ACCOUNT_DEFAULTS = { ...COMMON_DEFAULTS, abusiveAccountCost: 200, goodCustomerDeclineCost: 40 };

export const DEFAULT_SETTINGS: Readonly<Record<EventType, DecisionSettings>> = {
  order: { ...COMMON_DEFAULTS, grossMargin: 0.3, chargebackFee: 15 },
  return: { ...COMMON_DEFAULTS, abusiveReturnLossShare: 0.6, goodCustomerDeclineCost: 40 },
  signup: ACCOUNT_DEFAULTS,
  login: ACCOUNT_DEFAULTS,
  account: ACCOUNT_DEFAULTS,
};

/**
 * The settings in force for an event type: the type's defaults with what the merchant set over them
 * (only the type's own settings, only numbers: stored settings were validated when saved). A field the
 * merchant never set follows the default, so a better default reaches every merchant who kept it.
 */
export function settingsFor(eventType: EventType, stored: Readonly<Record<string, unknown>> = {}) {
  const settings: DecisionSettings = { ...DEFAULT_SETTINGS[eventType] };
  // The type's defaults name exactly its own settings.
  for (const name of Object.keys(settings) as SettingName[]) {
    const value = stored[name];
    if (typeof value === 'number' && Number.isFinite(value)) settings[name] = value;
  }
  return settings;
}
