/**
 * Stands in for `semver` in the X-Ray SDK path of `npm run bench -- tracing` (scripts/bench-tracing.ts
 * aliases it there), as the service's bundles had it while they carried the X-Ray SDK: the SDK under
 * the Powertools Tracer requires semver for one `gte` (cls-hooked compares the Node version with
 * 8.0.0 at load; the SDK v2 patcher, never called, compares the SDK's), and two copies of semver
 * (30 KB) and its regular expressions would otherwise be compiled at every cold start.
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
