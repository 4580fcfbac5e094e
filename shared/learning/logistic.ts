/**
 * Weighted logistic regression with a Gaussian prior (L2 penalty centred on a prior mean), fitted by
 * Newton's method. The problem is small (one coefficient per model signal, about 15), so the exact
 * Hessian and a Cholesky solve are cheap and converge in a handful of iterations; no dependency
 * needed. Pure and deterministic: same rows, same prior, same coefficients.
 *
 * Minimises  -sum_i w_i [y_i log p_i + (1 - y_i) log(1 - p_i)] + 1/2 sum_j precision_j (b_j - mean_j)^2
 * with p_i = sigmoid(x_i . b). With no rows the minimum is the prior mean.
 */
export interface WeightedRow {
  /** Feature values; x[0] is usually the constant 1 of the intercept. */
  x: readonly number[];
  /** 1 = abusive, 0 = not. */
  y: number;
  /** How much the row counts (1 for a settled label, less for a pending one). */
  w: number;
}

export interface Prior {
  mean: readonly number[];
  /** Inverse variance per coefficient: how strongly it is pulled toward its mean. */
  precision: readonly number[];
}

export interface LogisticFit {
  coefficients: number[];
  iterations: number;
  converged: boolean;
  /** The minimised objective (penalised negative log-likelihood). */
  objective: number;
}

const MAX_ITERATIONS = 100;
const TOLERANCE = 1e-10;

export function fitLogistic(rows: readonly WeightedRow[], prior: Prior): LogisticFit {
  const d = prior.mean.length;
  if (prior.precision.length !== d) throw new Error('prior mean and precision differ in length');
  if (prior.precision.some((p) => !(p > 0))) throw new Error('every prior precision must be positive');
  for (const row of rows)
    if (row.x.length !== d) throw new Error(`row has ${row.x.length} features, not ${d}`);
  let beta = [...prior.mean];
  let objective = objectiveAt(rows, prior, beta);
  for (let iteration = 1; iteration <= MAX_ITERATIONS; iteration++) {
    const { gradient, hessian } = derivatives(rows, prior, beta);
    const step = solveCholesky(hessian, gradient);
    // Backtracking keeps every step downhill, so separable data cannot make Newton overshoot.
    let scale = 1;
    let next = beta.map((b, j) => b - step[j]!);
    let nextObjective = objectiveAt(rows, prior, next);
    while (nextObjective > objective + 1e-12 * Math.abs(objective) && scale > 1e-8) {
      scale /= 2;
      next = beta.map((b, j) => b - scale * step[j]!);
      nextObjective = objectiveAt(rows, prior, next);
    }
    const moved = Math.max(...step.map((s) => Math.abs(s * scale)));
    beta = next;
    objective = nextObjective;
    if (moved < TOLERANCE) return { coefficients: beta, iterations: iteration, converged: true, objective };
  }
  return { coefficients: beta, iterations: MAX_ITERATIONS, converged: false, objective };
}

export const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

const dot = (a: readonly number[], b: readonly number[]) => {
  let sum = 0;
  for (let j = 0; j < a.length; j++) sum += a[j]! * b[j]!;
  return sum;
};

/** log(1 + e^z) without overflow. */
const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));

export function objectiveAt(rows: readonly WeightedRow[], prior: Prior, beta: readonly number[]): number {
  let total = 0;
  for (const row of rows) {
    const z = dot(row.x, beta);
    // -[y log p + (1-y) log(1-p)] = softplus(z) - y z
    total += row.w * (softplus(z) - row.y * z);
  }
  for (let j = 0; j < beta.length; j++) total += 0.5 * prior.precision[j]! * (beta[j]! - prior.mean[j]!) ** 2;
  return total;
}

export function derivatives(rows: readonly WeightedRow[], prior: Prior, beta: readonly number[]) {
  const d = beta.length;
  const gradient = beta.map((b, j) => prior.precision[j]! * (b - prior.mean[j]!));
  const hessian = Array.from({ length: d }, (_, i) =>
    Array.from({ length: d }, (_, j) => (i === j ? prior.precision[i]! : 0)),
  );
  for (const row of rows) {
    const p = sigmoid(dot(row.x, beta));
    const residual = row.w * (p - row.y);
    const curvature = row.w * p * (1 - p);
    for (let i = 0; i < d; i++) {
      const xi = row.x[i]!;
      if (xi === 0) continue;
      gradient[i]! += residual * xi;
      const hi = hessian[i]!;
      for (let j = 0; j <= i; j++) hi[j]! += curvature * xi * row.x[j]!;
    }
  }
  for (let i = 0; i < d; i++) for (let j = i + 1; j < d; j++) hessian[i]![j] = hessian[j]![i]!;
  return { gradient, hessian };
}

/** Solves A x = b for a symmetric positive definite A (the prior keeps the Hessian so). */
function solveCholesky(a: readonly (readonly number[])[], b: readonly number[]): number[] {
  const n = b.length;
  const l = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = a[i]![j]!;
      for (let k = 0; k < j; k++) sum -= l[i]![k]! * l[j]![k]!;
      if (i === j) {
        if (!(sum > 0)) throw new Error('Hessian is not positive definite');
        l[i]![i] = Math.sqrt(sum);
      } else l[i]![j] = sum / l[j]![j]!;
    }
  }
  const y = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    let sum = b[i]!;
    for (let k = 0; k < i; k++) sum -= l[i]![k]! * y[k]!;
    y[i] = sum / l[i]![i]!;
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let sum = y[i]!;
    for (let k = i + 1; k < n; k++) sum -= l[k]![i]! * x[k]!;
    x[i] = sum / l[i]![i]!;
  }
  return x;
}
