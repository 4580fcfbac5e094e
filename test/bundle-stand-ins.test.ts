import { describe, expect, it } from 'vitest';
import http, { request } from '../lib/node-http.ts';
import { gte } from '../lib/semver-gte.ts';

/** The small stand-ins the Lambda bundles alias in (lib/api-function.ts BUNDLE_ALIASES), as units. */
describe('bundle stand-ins', () => {
  it('semver gte compares versions numerically, part by part, as cls-hooked and the X-Ray SDK ask', () => {
    expect(gte(process.versions.node, '8.0.0')).toBe(true);
    expect(gte('8.0.0', '8.0.0')).toBe(true);
    expect(gte('7.10.1', '8.0.0')).toBe(false);
    expect(gte('v8.1.0', '8.0.0')).toBe(true);
    expect(gte('2.1000.0', '2.999.9')).toBe(true);
    expect(gte('2.1.9', '2.1.10')).toBe(false);
    expect(() => gte('not a version', '8.0.0')).toThrow(/Invalid Version/);
  });

  it('node:http is the very module require gives, without its ES module facade', () => {
    expect(http).toBe(process.getBuiltinModule('node:http'));
    expect(request).toBe(http.request);
  });
});
