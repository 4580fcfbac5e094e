import * as z from 'zod';
import { CONSOLE_EVENT_TYPES } from './console.ts';
import {
  boundedInt,
  count,
  isoDay,
  isoTime,
  label,
  perDayCount,
  settingAmount,
  share,
  text,
} from './fields.ts';

/**
 * The decision settings endpoints (GET|PUT /v1/settings/{type}) and the trade-off report
 * (GET /v1/tradeoffs/{type}). Amounts are in the merchant's own currency: nothing is converted.
 */
const eventType = z.enum(CONSOLE_EVENT_TYPES);

const described = <T extends z.ZodType>(schema: T, description: string) => schema.meta({ description });

/**
 * Every setting, as the request names it; which ones an event type takes is checked per type. The
 * names are scoring/decision-settings.ts's (use-cases/decision-settings.ts checks both list the same).
 */
const SETTING_FIELDS = {
  reviewCost: described(settingAmount(), 'What one manual review costs (default 5).'),
  reviewCapacityPerDay: described(
    perDayCount(),
    'Reviews a UTC day the team can work; once used up, the default rules stop reviewing (default 100).',
  ),
  maxGoodDeclinedShare: described(
    share(),
    'Good-customer budget: share of good events declined (default 0.005).',
  ),
  maxGoodReviewedShare: described(
    share(),
    'Good-customer budget: share of good events reviewed (default 0.02).',
  ),
  grossMargin: described(share(), 'Orders: gross margin lost with a declined good sale (default 0.3).'),
  chargebackFee: described(settingAmount(), 'Orders: fee of a chargeback, on top of the goods (default 15).'),
  abusiveReturnLossShare: described(
    share(),
    "Returns: share of an abusive return's value lost (default 0.6).",
  ),
  goodCustomerDeclineCost: described(
    settingAmount(),
    'Returns, signups, logins, account changes: what refusing a good customer costs (default 40).',
  ),
  abusiveAccountCost: described(
    settingAmount(),
    'Signups, logins, account changes: what an abusive account costs (default 200).',
  ),
};

/**
 * PUT replaces what the merchant set for the event type: a setting left out takes its default. A
 * setting of another event type is 422 `unknown_field` (checked against the path's type).
 */
export const decisionSettingsRequestSchema = z.strictObject(SETTING_FIELDS).partial();

const SETTING_NAMES = Object.keys(SETTING_FIELDS) as [
  keyof typeof SETTING_FIELDS,
  ...(keyof typeof SETTING_FIELDS)[],
];
/** A threshold on the 0-100 score scale; 101 declines (or reviews) nothing. */
const threshold = boundedInt(0, 101);

/** The settings in force (or the defaults): every type's own, the others absent. */
const value = z.number();
const settingValues = z
  .object({
    reviewCost: value,
    reviewCapacityPerDay: value,
    maxGoodDeclinedShare: value,
    maxGoodReviewedShare: value,
    grossMargin: value.optional(),
    chargebackFee: value.optional(),
    abusiveReturnLossShare: value.optional(),
    goodCustomerDeclineCost: value.optional(),
    abusiveAccountCost: value.optional(),
  })
  .meta({ id: 'DecisionSettingValues' });

const floorSource = z.enum(['measured', 'holdout', 'default']).meta({
  description: "measured on the merchant's labeled events, the trained model's holdout, or the default",
});

const guardSchema = z
  .object({
    budget: z.object({ maxGoodDeclinedShare: z.number(), maxGoodReviewedShare: z.number() }),
    /** The live model the floors are for. */
    modelVersion: label(),
    declineAt: threshold,
    reviewAt: threshold,
    source: z.object({ declineAt: floorSource, reviewAt: floorSource }),
    events: count(),
    goodEvents: count(),
    computedAt: isoTime().optional(),
    /** Where the floors in force come from, in words. */
    explanation: text(),
  })
  .meta({ id: 'GoodCustomerGuard' });

export const decisionSettingsStateSchema = z
  .object({
    eventType,
    settings: settingValues,
    defaults: settingValues,
    /** The settings the merchant set; the others follow the defaults. */
    customized: z.array(z.enum(SETTING_NAMES)).max(SETTING_NAMES.length),
    guard: guardSchema,
    /** Reviews opened today (UTC, approximate) against the capacity, for types that can review. */
    reviews: z.object({ today: count(), capacityPerDay: z.number(), capacityLeft: z.boolean() }).optional(),
    updatedAt: isoTime().optional(),
    updatedBy: label().optional(),
  })
  .meta({ id: 'DecisionSettings' });

const point = z.object({
  threshold,
  caught: z.number(),
  goodDeclined: z.number(),
  goodReviewed: z.number(),
  cost: z.number(),
});
const spread = z.object({ min: z.number(), median: z.number(), max: z.number() });
/** One point per threshold, 0 to 101. */
const THRESHOLDS = 102;
const curves = {
  events: count(),
  abusive: count(),
  good: count(),
  decline: z.array(point).max(THRESHOLDS),
  review: z.array(point).max(THRESHOLDS).optional(),
  live: z.object({
    declineAt: spread,
    reviewAt: spread,
    caught: z.number(),
    goodDeclined: z.number(),
    goodReviewed: z.number(),
    cost: z.number(),
  }),
};

export const tradeoffReportSchema = z
  .object({
    eventType,
    modelVersion: label(),
    settings: settingValues,
    guard: guardSchema,
    /** Whether the type's live workflow can review (else the review curve is absent). */
    canReview: z.boolean(),
    /**
     * The last 90 days of settled labels, whole, each event at the score it was decided with: counted
     * from the lake by the nightly learning item (`computedAt`; absent before its first run), from the
     * window's first day (`from`, UTC) with labels read as of the merchant's latest event then.
     */
    labeled: z.object({
      from: isoDay().optional(),
      computedAt: isoTime().optional(),
      labelledAsOf: isoTime().optional(),
      ...curves,
      excluded: z.object({ unlabeled: count(), censored: count() }),
    }),
    holdout: z.object({ ...curves, from: isoTime().nullable() }).optional(),
  })
  .meta({ id: 'TradeoffReport' });

export type DecisionSettingsRequest = z.infer<typeof decisionSettingsRequestSchema>;
export type DecisionSettingValues = z.infer<typeof settingValues>;
