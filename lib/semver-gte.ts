/**
 * Stands in for `semver` in the Lambda bundles (lib/api-function.ts aliases it here). Only the
 * X-Ray SDK under the Powertools Tracer requires it, for one `gte`: cls-hooked compares the Node
 * version with 8.0.0 at load, and the SDK v2 patcher (never called: the store uses SDK v3) compares
 * the SDK's. Two copies of semver (30 KB) and its regular expressions, compiled at every cold start,
 * answered that.
 */
const parts = (version: string): number[] =>
  (/^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim())?.slice(1) ?? [Number.NaN]).map(Number);

/** `a >= b` for plain `major.minor.patch` versions (a pre-release suffix is ignored). */
export function gte(a: string, b: string): boolean {
  const [x, y] = [parts(a), parts(b)];
  if (x.some(Number.isNaN) || y.some(Number.isNaN)) throw new TypeError(`Invalid Version: ${a} or ${b}`);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return true;
}

export default { gte };
