import { describe, expect, it } from 'vitest';
import { countedPhrase, plural } from '../shared/plural.ts';

/** Counts in words (identity summaries, upload results, signal evidence): one is singular. */
describe('plural', () => {
  it.each([
    [0, 'row', undefined, '0 rows'],
    [1, 'row', undefined, '1 row'],
    [2, 'return', undefined, '2 returns'],
    [1, 'address', 'addresses', '1 address'],
    [3, 'address', 'addresses', '3 addresses'],
  ])('%i %s', (count, singular, pluralForm, expected) => {
    expect(plural(count, singular, pluralForm)).toBe(expected);
  });

  it.each([
    [1, 'orders', '1 order'],
    [2, 'orders', '2 orders'],
    [1, 'abusive returns', '1 abusive return'],
    [1, 'login successes', '1 login success'],
    [1, 'device accounts tried', '1 device account tried'],
    [1, 'order value', '1 order value'],
    [0, 'lost chargebacks', '0 lost chargebacks'],
  ])('%i %s', (count, phrase, expected) => {
    expect(countedPhrase(count, phrase)).toBe(expected);
  });
});
