import { describe, expect, it } from 'vitest';
import type { ListMarker } from '../../shared/scoring/list-marker.ts';
import { watchedIdentitySignals, watchFacts } from '../../shared/scoring/signals/watched-identity.ts';
import { fakeSnapshot, listMarker } from './snapshots.ts';

/** One row per case of the watch signals: which identities count, and new against known customers. */
const ENTRY = Date.UTC(2026, 10, 12, 10);
const DAY = 86_400_000;
const watch = (overrides: Partial<ListMarker> = {}) =>
  listMarker({
    id: 'watch0001',
    list: 'watch',
    since: ENTRY,
    note: { cause: 'chargeback', ref: 'o-1' },
    ...overrides,
  });
const device = (lists: ListMarker[]) => fakeSnapshot('device', 'd1', { lists });
const email = (firstSeenAt?: number) =>
  fakeSnapshot('email', 'e1', firstSeenAt === undefined ? {} : { firstSeenAt });

describe('watchedIdentitySignals', () => {
  const rows: [string, ReturnType<typeof watchFacts>, Record<string, number>, string | undefined][] = [
    [
      'nothing watched fires nothing',
      watchFacts('order', [device([]), email()], [email()], 'e-mail'),
      {},
      undefined,
    ],
    [
      'a new e-mail on a watched device: new customer, with the entry in words',
      watchFacts('order', [device([watch()]), email()], [email()], 'e-mail'),
      { watchedIdentityNewCustomer: 1 },
      'device on the watch list since 12 Nov 2026 (lost fraud chargeback on order o-1); e-mail first seen after it',
    ],
    [
      'an e-mail first seen after the entry counts as new',
      watchFacts('order', [device([watch()])], [email(ENTRY + DAY)], 'e-mail'),
      { watchedIdentityNewCustomer: 1 },
      undefined,
    ],
    [
      'a household member with months of history: known customer, light',
      watchFacts('order', [device([watch()])], [email(ENTRY - 120 * DAY)], 'e-mail'),
      { watchedIdentityKnownCustomer: 1 },
      'device on the watch list since 12 Nov 2026 (lost fraud chargeback on order o-1)',
    ],
    [
      'three watched identities: log2(4) = 2, the earliest entry of each',
      watchFacts(
        'order',
        [
          device([watch({ since: ENTRY + DAY }), watch()]),
          fakeSnapshot('card', 'c1', { lists: [watch()] }),
          fakeSnapshot('address', 'a1', { lists: [watch()] }),
        ],
        [email(ENTRY - DAY / 2)],
        'e-mail',
      ),
      { watchedIdentityKnownCustomer: 2 },
      undefined,
    ],
    [
      'an entry scoped to another event type does not count',
      watchFacts('order', [device([watch({ eventTypes: ['return'] })])], [email()], 'e-mail'),
      {},
      undefined,
    ],
  ];
  it.each(rows)('%s', (_name, facts, expected, evidence) => {
    const signals = Object.fromEntries(
      Object.entries(watchedIdentitySignals(facts)).filter(([, s]) => s !== undefined),
    );
    expect(Object.fromEntries(Object.entries(signals).map(([name, s]) => [name, s!.value]))).toEqual(
      expected,
    );
    if (evidence) expect(Object.values(signals)[0]!.evidence).toBe(evidence);
  });
});
