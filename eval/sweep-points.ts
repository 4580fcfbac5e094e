import { type FieldShares, NOMINAL, type TrafficParams } from './params.ts';

/**
 * The points of `npm run eval -- --sweep` (eval/README.md): the nominal traffic, then one parameter
 * at a time moved over the range real merchants' traffic spans. The same points for every seed, so
 * seeds pool point by point.
 */
export interface SweepPoint {
  name: string;
  description: string;
  params: TrafficParams;
  /** Which events are measured, by time (ms before the end): all of them when absent. */
  measured?: { from: number; until: number };
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const SALE_DAY_ENDS_BEFORE = 20 * DAY;
/** A merchant with 40 days behind its sale day: a usual day of it holds enough events to judge the sale's by. */
const SALE_MERCHANT_AGE = 60 * DAY;

const gaps = (scale: number, label: string, description: string): SweepPoint => ({
  name: `gaps ${label}`,
  description: `every gap between a pattern's steps x${label}: ${description}`,
  params: { ...NOMINAL, gapScale: scale },
});

const fields = (share: number, label: string): SweepPoint => {
  const shares: FieldShares = {
    orderDevice: share,
    accountTimestamp: share,
    signupPhone: share,
    signupBilling: share,
  };
  return {
    name: `fields ${label}`,
    description: `${share * 100} % of orders carry a device, of signups and logins a timestamp, of signups a phone and a billing address`,
    params: { ...NOMINAL, fields: shares },
  };
};

export const SWEEP_POINTS: readonly SweepPoint[] = [
  { name: 'nominal', description: 'the traffic of `npm run eval`: a year-old merchant', params: NOMINAL },
  gaps(
    1 / 24,
    '1/24',
    "a ring's orders 5-8 hours apart, a wardrober's cycles 14-30 hours, a bot's accounts 1-10 s",
  ),
  gaps(1 / 4, '1/4', "a ring's orders 1-2 days apart, a wardrober's cycles 4-8 days"),
  gaps(
    4,
    '4',
    "a ring's orders 3-5 weeks apart, a wardrober's cycles 2-4 months, a takeover's changes 2-60 min",
  ),
  gaps(
    16,
    '16',
    "a ring's orders 3-4 months apart, multi-accounting signups 1-32 days, a takeover's changes 8 min-4 h",
  ),
  {
    name: 'first day',
    description:
      "the merchant's first 24 hours: no history at all, every shopper and pattern starts within the day",
    params: { ...NOMINAL, merchantAge: DAY },
  },
  {
    name: 'first week',
    description: "the merchant's first 7 days: no history before them",
    params: { ...NOMINAL, merchantAge: 7 * DAY },
  },
  {
    name: 'sale day',
    description:
      "a day at ten times the usual traffic, same mix, 20 days before the end of a merchant's first 60 days, its year's traffic within them (measured: that day)",
    params: { ...NOMINAL, merchantAge: SALE_MERCHANT_AGE, saleDayEndsBefore: SALE_DAY_ENDS_BEFORE },
    measured: { from: SALE_DAY_ENDS_BEFORE + DAY, until: SALE_DAY_ENDS_BEFORE },
  },
  fields(0, 'none'),
  fields(0.5, 'half'),
  fields(1, 'all'),
  {
    name: 'households close',
    description: 'households of 2-6 members on a shared phone or device, joining 1 minute to 6 hours apart',
    params: { ...NOMINAL, households: { members: [2, 6], joinGap: [MINUTE, 6 * HOUR] } },
  },
  {
    name: 'households spread',
    description: 'households of 2-6 members on a shared phone or device, joining 1 week to 3 months apart',
    params: { ...NOMINAL, households: { members: [2, 6], joinGap: [7 * DAY, 90 * DAY] } },
  },
  {
    name: 'small domains',
    description: 'e-mails at many small domains: 30 regional providers and 384 company domains',
    params: { ...NOMINAL, emailDomains: 'small' },
  },
];
