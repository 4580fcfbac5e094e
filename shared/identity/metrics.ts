/**
 * Names of the counters kept per identity. Writers (use cases) and readers (scoring signals) share
 * these, so a counter can never be written under one name and read under another. Short names keep
 * the counter items small: item size is what every decision pays for.
 */
export const METRIC = {
  orders: 'ord',
  orderValue: 'ordV',
  returns: 'ret',
  returnValue: 'retV',
  abusiveReturns: 'abr',
  lostChargebacks: 'cbL',
  lostChargebackValue: 'cbLV',
  openDisputes: 'dsO',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];
