/**
 * Dollars per million orders from what one order consumes, at us-east-1 list prices (2026): the
 * arithmetic docs/benchmarks.md quotes, in one place, so the bench prints goal 5 from its own
 * measurements. CloudWatch logs and metrics are not counted.
 */
export const PRICES = {
  /** DynamoDB on-demand, per write / read request unit. */
  onDemandWriteUnit: 0.625e-6,
  onDemandReadUnit: 0.125e-6,
  /** DynamoDB provisioned, per capacity unit-hour. */
  wcuHour: 0.00065,
  rcuHour: 0.00013,
  /** API Gateway, per request (first tier). */
  restApiRequest: 3.5e-6,
  httpApiRequest: 1e-6,
  /** Lambda arm64, per request and per GB-second. */
  lambdaRequest: 0.2e-6,
  lambdaGbSecond: 0.0000133334,
} as const;

export interface OrderConsumption {
  writeUnits: number;
  readUnits: number;
  /** The function's billed duration (Lambda rounds up to the millisecond). */
  durationMs: number;
  memoryMb: number;
}

/** On-demand, or provisioned with auto scaling holding consumption at `targetUtilization` (0-1). */
export type Capacity = { mode: 'on-demand' } | { mode: 'provisioned'; targetUtilization: number };

export interface CostPerMillion {
  writes: number;
  reads: number;
  lambda: number;
  restTotal: number;
  httpTotal: number;
}

const MILLION = 1_000_000;
const SECONDS_PER_HOUR = 3_600;

/** DynamoDB's price of one order's units: per request on-demand, per unit-hour held when provisioned. */
function tablePerOrder(units: number, unitPrice: number, hourPrice: number, capacity: Capacity): number {
  return capacity.mode === 'on-demand'
    ? units * unitPrice
    : (units / capacity.targetUtilization / SECONDS_PER_HOUR) * hourPrice;
}

export function costPerMillionOrders(order: OrderConsumption, capacity: Capacity): CostPerMillion {
  const writes = tablePerOrder(order.writeUnits, PRICES.onDemandWriteUnit, PRICES.wcuHour, capacity);
  const reads = tablePerOrder(order.readUnits, PRICES.onDemandReadUnit, PRICES.rcuHour, capacity);
  const lambda =
    PRICES.lambdaRequest +
    (Math.ceil(order.durationMs) / 1_000) * (order.memoryMb / 1_024) * PRICES.lambdaGbSecond;
  const common = (writes + reads + lambda) * MILLION;
  return {
    writes: writes * MILLION,
    reads: reads * MILLION,
    lambda: lambda * MILLION,
    restTotal: common + PRICES.restApiRequest * MILLION,
    httpTotal: common + PRICES.httpApiRequest * MILLION,
  };
}
