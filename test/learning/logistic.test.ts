import { describe, expect, it } from 'vitest';
import { SeededRandom } from '../../eval/random.ts';
import { derivatives, fitLogistic, sigmoid, type WeightedRow } from '../../shared/learning/logistic.ts';

/** Practically no prior: the fit is the plain maximum-likelihood estimate. */
const FLAT = 1e-12;
const logit = (p: number) => Math.log(p / (1 - p));

describe('fitLogistic against reference solutions', () => {
  it('intercept only, no penalty: the weighted log-odds of the labels (closed form)', () => {
    const rows: WeightedRow[] = [
      ...Array.from({ length: 7 }, () => ({ x: [1], y: 1, w: 1 })),
      ...Array.from({ length: 4 }, () => ({ x: [1], y: 1, w: 0.5 })),
      ...Array.from({ length: 20 }, () => ({ x: [1], y: 0, w: 1 })),
    ];
    const fit = fitLogistic(rows, { mean: [0], precision: [FLAT] });
    expect(fit.converged).toBe(true);
    expect(fit.coefficients[0]).toBeCloseTo(logit(9 / 29), 8);
  });

  it('one binary feature, no penalty: log-odds of each group (closed form from the 2x2 table)', () => {
    const group = (x: number, positives: number, negatives: number): WeightedRow[] => [
      ...Array.from({ length: positives }, () => ({ x: [1, x], y: 1, w: 1 })),
      ...Array.from({ length: negatives }, () => ({ x: [1, x], y: 0, w: 1 })),
    ];
    const fit = fitLogistic([...group(0, 5, 95), ...group(1, 30, 20)], {
      mean: [0, 0],
      precision: [FLAT, FLAT],
    });
    expect(fit.coefficients[0]).toBeCloseTo(logit(0.05), 8);
    expect(fit.coefficients[1]).toBeCloseTo(logit(0.6) - logit(0.05), 8);
  });

  it('one coefficient with a prior: equals the root of the gradient found by bisection to 1e-13', () => {
    const random = new SeededRandom(7);
    const rows: WeightedRow[] = Array.from({ length: 60 }, () => {
      const x = random.next() * 4 - 2;
      return { x: [x], y: random.chance(sigmoid(1.3 * x)) ? 1 : 0, w: random.chance(0.2) ? 0.5 : 1 };
    });
    const prior = { mean: [0.4], precision: [3] };
    const gradient = (b: number) =>
      rows.reduce((sum, r) => sum + r.w * (sigmoid(r.x[0]! * b) - r.y) * r.x[0]!, 0) + 3 * (b - 0.4);
    let low = -20;
    let high = 20;
    for (let i = 0; i < 200; i++) {
      const mid = (low + high) / 2;
      if (gradient(mid) > 0) high = mid;
      else low = mid;
    }
    expect(fitLogistic(rows, prior).coefficients[0]).toBeCloseTo((low + high) / 2, 10);
  });

  it('at the fit the penalised gradient vanishes (several coefficients, separable-ish data)', () => {
    const random = new SeededRandom(11);
    const rows: WeightedRow[] = Array.from({ length: 300 }, () => {
      const x = [1, random.int(0, 3), random.next(), random.chance(0.1) ? 1 : 0];
      return { x, y: x[3] === 1 || random.chance(0.05) ? 1 : 0, w: 1 };
    });
    const prior = { mean: [-2, 0.5, 0, 1], precision: [1, 1, 1, 1] };
    const fit = fitLogistic(rows, prior);
    expect(fit.converged).toBe(true);
    for (const g of derivatives(rows, prior, fit.coefficients).gradient)
      expect(Math.abs(g)).toBeLessThan(1e-8);
  });

  it('no rows: the prior mean', () => {
    expect(fitLogistic([], { mean: [-3, 1.5], precision: [1, 1] }).coefficients).toEqual([-3, 1.5]);
  });

  it('refuses a row of the wrong width and a non-positive precision', () => {
    expect(() => fitLogistic([{ x: [1], y: 1, w: 1 }], { mean: [0, 0], precision: [1, 1] })).toThrow(
      /features/,
    );
    expect(() => fitLogistic([], { mean: [0], precision: [0] })).toThrow(/precision/);
  });
});
