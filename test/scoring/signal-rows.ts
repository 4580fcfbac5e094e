import { describe, expect, it } from 'vitest';
import type { EventType } from '../../shared/contract/endpoints.ts';
import type { ListMarker } from '../../shared/scoring/list-marker.ts';
import type { IdentityTimeFacts } from '../../shared/scoring/signals/identity-time.ts';
import { type SignalName, signalNames } from '../../shared/scoring/signals/registry.ts';
import type { Signal, Signals } from '../../shared/scoring/signals/signal.ts';
import { type WatchFacts, watchFacts } from '../../shared/scoring/signals/watched-identity.ts';
import { timeFacts } from './scoring-inputs.ts';
import { type FakeHistory, fakeSnapshot, listMarker } from './snapshots.ts';

/** One case of one signal: an event's scoring input and what the signal answers (undefined: silent). */
export interface SignalRow<Input> {
  label: string;
  input: Input;
  fires: Signal | undefined;
}

/** Rows for every signal an event type declares: tsc fails on a declared signal without rows. */
export type SignalRows<T extends EventType, Input> = Record<SignalName<T>, readonly SignalRow<Input>[]>;

export const fires = <Input>(
  label: string,
  input: Input,
  value: number,
  evidence: string,
): SignalRow<Input> => ({
  label,
  input,
  fires: { value, evidence },
});

export const silent = <Input>(label: string, input: Input): SignalRow<Input> => ({
  label,
  input,
  fires: undefined,
});

/**
 * The table-driven test of an event type's signals: for each signal of the registry, its rows run
 * through the type's entry point (`orderSignals(input)`), and each signal has rows both ways.
 */
export function describeSignalRows<T extends EventType, Input>(
  eventType: T,
  signalsOf: (input: Input) => Signals,
  rows: SignalRows<T, Input>,
): void {
  describe(`${eventType} signals, rows per declared signal`, () => {
    for (const name of signalNames(eventType) as SignalName<T>[]) {
      const table = rows[name];
      it(`${name}: fires in some rows and not in others`, () => {
        expect(table.some((row) => row.fires)).toBe(true);
        expect(table.some((row) => !row.fires)).toBe(true);
      });
      it.each(table.map((row) => [row.label, row] as const))(`${name}: %s`, (_label, row) => {
        expect(signalsOf(row.input)[name]).toEqual(row.fires);
      });
    }
  });
}

// ---- Rows of the signals several event types share, for the type at hand ---------------------

type Make<Input> = (time: IdentityTimeFacts) => Input;

function scriptSpeedRows<Input>(make: Make<Input>, eventWord: string): SignalRow<Input>[] {
  return [
    fires(
      '4 s after the account’s previous event: 1 / (1 + (4 / 20)^4)',
      make(timeFacts({ secondsSincePreviousEvent: 4 })),
      1 / (1 + 0.2 ** 4),
      `${eventWord} 4 seconds after this account's previous event`,
    ),
    fires(
      'at the same second as the e-mail’s previous event',
      make(timeFacts({ secondsSincePreviousEvent: 0, mainKind: 'email' })),
      1,
      `${eventWord} 0 seconds after this e-mail's previous event`,
    ),
    fires(
      '20 s after: half',
      make(timeFacts({ secondsSincePreviousEvent: 20 })),
      0.5,
      `${eventWord} 20 seconds after this account's previous event`,
    ),
    silent('70 s after: typed, not scripted', make(timeFacts({ secondsSincePreviousEvent: 70 }))),
    silent('no event before it', make(timeFacts())),
  ];
}

function youngIdentityRows<Input>(
  make: Make<Input>,
  kind: 'email' | 'customer',
  words: string,
): SignalRow<Input>[] {
  const aged = (age: number) => make(timeFacts({ ages: { ...timeFacts().ages, [kind]: age } }));
  return [
    fires(
      `${words} first seen 5 minutes before: 1 - 300/600`,
      aged(300),
      0.5,
      `${words} first seen 5 minutes ago`,
    ),
    fires(`${words} first seen 4 s before`, aged(4), 1 - 4 / 600, `${words} first seen 4 seconds ago`),
    silent(`${words} first seen 10 minutes before`, aged(600)),
    silent(`${words} first seen at this event`, aged(0)),
  ];
}

type Pair = keyof IdentityTimeFacts['velocity'];

/** `read`: a pair the event type reads, in words (`card`, `e-mails`); `unread`: one it does not. */
function newIdentitiesRows<Input>(
  make: Make<Input>,
  read: { pair: Pair; holder: string; others: string },
  unread: Pair,
): SignalRow<Input>[] {
  const burst = (pair: Pair, h1: number) =>
    make(timeFacts({ velocity: { ...timeFacts().velocity, [pair]: { m15: 1, h1, h24: h1 + 1 } } }));
  return [
    fires(
      `3 other ${read.others} on the ${read.holder} in the hour: log2(3)`,
      burst(read.pair, 3),
      Math.log2(3),
      `${read.holder} seen with 3 other ${read.others} in the last hour`,
    ),
    silent(`1 other on the ${read.holder} (a household)`, burst(read.pair, 1)),
    silent(`${unread}: a pair this event type does not read`, burst(unread, 5)),
  ];
}

/** Row builders of the shared signals, by signal: each event type that declares one calls it. */
// The watch signals: which identities count, and a customer new against one known before the entry.
const ENTRY = Date.UTC(2026, 10, 12, 10);
const ENTRY_WORDS = 'device on the watch list since 12 Nov 2026 (lost fraud chargeback on order o-1)';
const watchEntry = (overrides: Partial<ListMarker> = {}) =>
  listMarker({
    id: 'watch0001',
    list: 'watch',
    since: ENTRY,
    note: { cause: 'chargeback', ref: 'o-1' },
    ...overrides,
  });
const watchedDevice = (lists: ListMarker[], counts: FakeHistory['counts'] = {}) =>
  fakeSnapshot('device', 'd1', { lists, counts });
/** A family's device a feedback rule listed after 6 clean orders, with the entry's own chargeback. */
const familyDevice = (chargebacks = 1) =>
  watchedDevice([watchEntry({ keptAtEntry: 6 })], { cbL: { lifetime: chargebacks } });
const customer = (firstSeenAt?: number, history: FakeHistory = {}) =>
  fakeSnapshot('email', 'e1', firstSeenAt === undefined ? history : { firstSeenAt, ...history });
const DAY_MS = 86_400_000;

function watchedNewCustomerRows<Input>(
  make: (watch: WatchFacts) => Input,
  type: EventType,
): SignalRow<Input>[] {
  const facts = (
    watchable: Parameters<typeof watchFacts>[1],
    firstSeenAt?: number,
    history: FakeHistory = {},
    at = ENTRY + 2 * DAY_MS,
    household: Parameters<typeof watchFacts>[1] = [],
  ) => make(watchFacts(type, watchable, [customer(firstSeenAt, history)], 'e-mail', at, household));
  return [
    fires(
      'a new customer on a watched device, with the entry in words',
      facts([watchedDevice([watchEntry()])]),
      1,
      `${ENTRY_WORDS}; e-mail first seen after it`,
    ),
    fires(
      'a customer first seen after the entry counts as new',
      facts([watchedDevice([watchEntry()])], ENTRY + 86_400_000),
      1,
      `${ENTRY_WORDS}; e-mail first seen after it`,
    ),
    fires(
      "a ring's e-mail back on the fourth day, one order kept: novelty e^-(1/3)",
      facts(
        [watchedDevice([watchEntry()])],
        ENTRY + DAY_MS,
        { counts: { ord: { lifetime: 1 } } },
        ENTRY + 5 * DAY_MS,
      ),
      Math.log2(1 + Math.exp(-1 / 3)),
      `${ENTRY_WORDS}; e-mail first seen after it`,
    ),
    fires(
      'a customer first seen after the entry with a lost chargeback of its own stays new',
      facts(
        [watchedDevice([watchEntry()])],
        ENTRY + DAY_MS,
        { counts: { ord: { lifetime: 9 }, cbL: { d365: 1 } }, lastSeenAt: ENTRY + 40 * DAY_MS },
        ENTRY + 60 * DAY_MS,
      ),
      1,
      `${ENTRY_WORDS}; e-mail first seen after it`,
    ),
    silent(
      'a household member first seen after the entry, 8 weeks of coming back and 20 kept orders',
      facts(
        [watchedDevice([watchEntry()])],
        ENTRY + DAY_MS,
        { counts: { ord: { lifetime: 20 } }, lastSeenAt: ENTRY + 57 * DAY_MS },
        ENTRY + 60 * DAY_MS,
      ),
    ),
    fires(
      "a newcomer on a family's device listed after 6 clean orders, 1 chargeback: e^-(5/3)",
      facts([familyDevice()]),
      Math.log2(1 + Math.exp(-5 / 3)),
      `${ENTRY_WORDS}; e-mail first seen after it`,
    ),
    fires(
      "the same at its second order, one kept: e^-(5/3) of the customer's e^-(1/3)",
      facts([familyDevice()], ENTRY + DAY_MS, { counts: { ord: { lifetime: 1 } } }, ENTRY + 2 * DAY_MS),
      Math.log2(1 + Math.exp(-5 / 3) * Math.exp(-1 / 3)),
      `${ENTRY_WORDS}; e-mail first seen after it`,
    ),
    fires(
      "a newcomer named another member of the family's household: its standing is his history too, e^-(10/3)",
      facts([familyDevice()], undefined, {}, ENTRY + 2 * DAY_MS, [familyDevice()]),
      Math.log2(1 + Math.exp(-10 / 3)),
      `${ENTRY_WORDS}; e-mail first seen after it`,
    ),
    fires(
      "a name the ring's device holds vouches for nothing: no standing, counted in full",
      facts([watchedDevice([watchEntry()])], undefined, {}, ENTRY + 2 * DAY_MS, [watchedDevice([])]),
      1,
      `${ENTRY_WORDS}; e-mail first seen after it`,
    ),
    fires(
      'a device whose clean orders were charged back since counts in full',
      facts([familyDevice(6)]),
      1,
      `${ENTRY_WORDS}; e-mail first seen after it`,
    ),
    fires(
      "a customer with a lost chargeback of its own on a family's device stays new",
      facts([familyDevice()], ENTRY + DAY_MS, { counts: { ord: { lifetime: 2 }, cbL: { d365: 1 } } }),
      1,
      `${ENTRY_WORDS}; e-mail first seen after it`,
    ),
    silent('nothing watched', facts([watchedDevice([])])),
    silent(
      'an entry scoped to another event type',
      facts([watchedDevice([watchEntry({ eventTypes: [type === 'return' ? 'order' : 'return'] })])]),
    ),
    silent(
      'a customer known before the entry',
      facts([watchedDevice([watchEntry()])], ENTRY - 120 * 86_400_000),
    ),
  ];
}

function watchedKnownCustomerRows<Input>(
  make: (watch: WatchFacts) => Input,
  type: EventType,
): SignalRow<Input>[] {
  const known = (watchable: Parameters<typeof watchFacts>[1]) =>
    make(watchFacts(type, watchable, [customer(ENTRY - 120 * 86_400_000)], 'e-mail', ENTRY + 2 * 86_400_000));
  return [
    fires(
      'a household member with months of history on a watched device',
      known([watchedDevice([watchEntry()])]),
      1,
      ENTRY_WORDS,
    ),
    fires(
      'three watched identities: log2(4) = 2',
      known([
        watchedDevice([watchEntry({ since: ENTRY + 86_400_000 }), watchEntry()]),
        fakeSnapshot('card', 'c1', { lists: [watchEntry()] }),
        fakeSnapshot('phone', 'p1', { lists: [watchEntry()] }),
      ]),
      2,
      ENTRY_WORDS,
    ),
    fires(
      "a newcomer on a family's device listed after 6 clean orders: 1 - e^-(5/3) of it is known",
      make(watchFacts(type, [familyDevice()], [customer()], 'e-mail', ENTRY + 2 * 86_400_000)),
      Math.log2(2 - Math.exp(-5 / 3)),
      ENTRY_WORDS,
    ),
    silent('nothing watched', known([watchedDevice([])])),
    silent(
      'a new customer',
      make(watchFacts(type, [watchedDevice([watchEntry()])], [customer()], 'e-mail', ENTRY + 2 * 86_400_000)),
    ),
  ];
}

export const sharedRows = {
  watchedIdentityNewCustomer: watchedNewCustomerRows,
  watchedIdentityKnownCustomer: watchedKnownCustomerRows,
  scriptSpeedAfterPreviousEvent: scriptSpeedRows,
  youngIdentity: youngIdentityRows,
  newIdentitiesAroundLastHour: newIdentitiesRows,
};
