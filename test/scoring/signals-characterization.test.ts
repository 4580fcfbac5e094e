import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CASES_PER_TYPE,
  type ScoredType,
  SIGNALS_OF,
  type SignalCase,
  signalsOfCase,
} from './fixtures/signal-cases.ts';

/**
 * Every event type's signals answer what they answered when test/scoring/fixtures/ was written, for
 * a few hundred generated inputs each (fixed seed; every signal fires in some and not in others):
 * the same names in the same order, the same values to the last bit, the same evidence.
 */
describe('signals of recorded inputs', () => {
  for (const type of Object.keys(SIGNALS_OF) as ScoredType[]) {
    it(`${type}: as recorded in fixtures/${type}-signals.json`, () => {
      const file = join(import.meta.dirname, 'fixtures', `${type}-signals.json`);
      const cases = JSON.parse(readFileSync(file, 'utf8')) as SignalCase[];
      expect(cases).toHaveLength(CASES_PER_TYPE);
      cases.forEach((recorded, i) => {
        const signals = signalsOfCase(type, recorded.snapshots, recorded.input);
        expect(Object.keys(signals), `${type} case ${i}: names and order`).toEqual(
          Object.keys(recorded.signals),
        );
        expect(signals, `${type} case ${i}`).toStrictEqual(recorded.signals);
      });
    });
  }
});
