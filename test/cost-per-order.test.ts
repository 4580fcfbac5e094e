import { describe, expect, it } from 'vitest';
import { costPerMillionOrders } from '../scripts/cost-per-order.ts';

// The cost figures of docs/benchmarks.md, recomputed: an order of 13.05 write units, 1 read unit, 20 ms at 512 MB.
const order = { writeUnits: 13.05, readUnits: 1, durationMs: 20, memoryMb: 512 };
const cents = (x: number) => Math.round(x * 100) / 100;

describe('cost per million orders (scripts/cost-per-order.ts)', () => {
  it('prices on-demand units per request: $12.11 on a REST API, $9.61 on an HTTP API', () => {
    const cost = costPerMillionOrders(order, { mode: 'on-demand' });
    expect([cost.writes, cost.reads, cost.lambda].map(cents)).toEqual([8.16, 0.13, 0.33]);
    expect([cost.restTotal, cost.httpTotal].map(cents)).toEqual([12.11, 9.61]);
  });

  it('prices provisioned units per hour held at the target utilisation', () => {
    const at70 = costPerMillionOrders(order, { mode: 'provisioned', targetUtilization: 0.7 });
    expect([at70.writes, at70.reads].map(cents)).toEqual([3.37, 0.05]);
    expect([at70.restTotal, at70.httpTotal].map(cents)).toEqual([7.25, 4.75]);
    const at50 = costPerMillionOrders(order, { mode: 'provisioned', targetUtilization: 0.5 });
    expect(cents(at50.restTotal)).toBe(8.62);
  });

  it('bills Lambda by the started millisecond and by memory', () => {
    const base = costPerMillionOrders(order, { mode: 'on-demand' });
    const rounded = costPerMillionOrders({ ...order, durationMs: 19.2 }, { mode: 'on-demand' });
    expect(rounded.lambda).toBeCloseTo(base.lambda, 10);
    const doubled = costPerMillionOrders({ ...order, memoryMb: 1_024 }, { mode: 'on-demand' });
    expect(doubled.lambda - 0.2).toBeCloseTo(2 * (base.lambda - 0.2), 10);
  });
});
