import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestFingerprint, requestFingerprints } from '../../shared/store/canonical.ts';

const STATUS = ['state', 'timestamp'] as const;

/** Bodies as JSON.parse makes them: any keys (`__proto__` and integer-like ones too), nested. */
const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'state', 'timestamp', '10', '9', 'a'));
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue({ maxDepth: 1 }),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(key, tie('v'), { maxKeys: 4 }),
  ),
})).v;
const body = fc
  .dictionary(key, value, { maxKeys: 6 })
  .map((b) => JSON.parse(JSON.stringify(b)) as Record<string, unknown>);

describe('request fingerprints', () => {
  it('both hashes from one sort equal the hashes taken one by one', () => {
    fc.assert(
      fc.property(body, (b) => {
        expect(requestFingerprints(b, STATUS)).toEqual({
          requestHash: requestFingerprint(b),
          stableHash: requestFingerprint(b, STATUS),
        });
      }),
      { numRuns: 2_000 },
    );
  });

  it('ignores key order and whitespace, not a status change for the whole-body hash', () => {
    const a = JSON.parse('{"state":"PAID","b":{"y":1,"x":[2,{"q":3,"p":4}]},"a":"1"}');
    const b = JSON.parse('{ "a": "1", "b": { "x": [2, { "p": 4, "q": 3 }], "y": 1 }, "state": "PAID" }');
    expect(requestFingerprints(a, STATUS)).toEqual(requestFingerprints(b, STATUS));
    const updated = requestFingerprints({ ...a, state: 'SHIPPED' }, STATUS);
    expect(updated.stableHash).toBe(requestFingerprints(a, STATUS).stableHash);
    expect(updated.requestHash).not.toBe(requestFingerprints(a, STATUS).requestHash);
  });

  it('hashes a `__proto__` field as a field, at any depth', () => {
    const withField = JSON.parse('{"a":1,"c":{"__proto__":{"x":1}}}');
    const without = JSON.parse('{"a":1,"c":{}}');
    expect(requestFingerprint(withField)).not.toBe(requestFingerprint(without));
    const top = JSON.parse('{"__proto__":{"x":1},"a":1}');
    expect(requestFingerprint(top)).not.toBe(requestFingerprint({ a: 1 }));
  });
});
