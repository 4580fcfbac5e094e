import { type IdentityKind, type IdentityRef, sameIdentity } from '../../identity/identities.ts';
import { plural } from '../../plural.ts';
import type { DistinctCount, IdentitySnapshot, VelocityWindow } from '../identity-snapshot.ts';
import { declareSignal, fadeAround, KIND_WORDS, kindWord, SILENT_BELOW, saturating } from './signal.ts';

/**
 * Time facts of an event's identities, as of the event's own time: how old each identity is, how
 * long since the event's main identity was last seen, and how many distinct other identities
 * appeared around its device, card and address in the last minutes. New-account fraud cannot hide
 * these: its identities are young and appear in bursts around the few expensive ones it reuses.
 */
export interface IdentityTimeFacts {
  /** Seconds since first seen, the oldest identity of each kind; 0 = first seen now, -1 = none. */
  ages: Record<AgedKind, number>;
  /** Seconds since the main identity's previous event; -1 when it has none before this one. */
  secondsSincePreviousEvent: number;
  /** The main identity the previous fact is about. */
  mainKind: IdentityKind;
  velocity: Record<VelocityPair, DistinctCount>;
}

const AGED_KINDS = ['email', 'customer', 'device', 'card', 'address'] as const;
export type AgedKind = (typeof AGED_KINDS)[number];

/** Counted pairs: the identity whose bucket holds the count, and the kind counted. */
const VELOCITY_PAIRS = {
  emailsPerDevice: ['device', 'email'],
  customersPerDevice: ['device', 'customer'],
  cardsPerDevice: ['device', 'card'],
  emailsPerCard: ['card', 'email'],
  customersPerAddress: ['address', 'customer'],
} as const satisfies Record<string, readonly [IdentityKind, IdentityKind]>;
export type VelocityPair = keyof typeof VELOCITY_PAIRS;

const AGE_FIELD: Record<AgedKind, string> = {
  email: 'emailAgeSeconds',
  customer: 'accountAgeSeconds',
  device: 'deviceAgeSeconds',
  card: 'cardAgeSeconds',
  address: 'addressAgeSeconds',
};

const WINDOW_SUFFIX: Record<VelocityWindow, string> = { m15: '15m', h1: '1h', h24: '24h' };
const PAIR_FIELD: Record<VelocityPair, string> = {
  emailsPerDevice: 'distinctEmailsOnDevice',
  customersPerDevice: 'distinctAccountsOnDevice',
  cardsPerDevice: 'distinctCardsOnDevice',
  emailsPerCard: 'distinctEmailsOnCard',
  customersPerAddress: 'distinctAccountsOnAddress',
};

/**
 * `snapshots`: every identity of the event, read as of `at`. `main`: the identity whose previous
 * event counts (the account for account events, the e-mail for orders).
 */
export function identityTimeFacts(
  snapshots: readonly IdentitySnapshot[],
  main: IdentityRef | undefined,
  at: number,
): IdentityTimeFacts {
  const own = snapshots.map((s) => s.ref);
  const ages = Object.fromEntries(
    AGED_KINDS.map((kind) => {
      const ofKind = snapshots.filter((s) => s.ref.kind === kind);
      if (ofKind.length === 0) return [kind, -1];
      return [kind, Math.max(...ofKind.map((s) => ageSeconds(s, at)))];
    }),
  ) as Record<AgedKind, number>;
  const mainSnapshot = main ? snapshots.find((s) => sameIdentity(s.ref, main)) : undefined;
  const last = mainSnapshot?.lastSeenAt;
  const velocity = Object.fromEntries(
    Object.entries(VELOCITY_PAIRS).map(([pair, [holder, counted]]) => {
      const ownCounted = own.filter((ref) => ref.kind === counted);
      const best: DistinctCount = { m15: 0, h1: 0, h24: 0 };
      for (const snapshot of snapshots) {
        if (snapshot.ref.kind !== holder) continue;
        const count = snapshot.distinct(counted, ownCounted);
        for (const w of ['m15', 'h1', 'h24'] as const) best[w] = Math.max(best[w], count[w]);
      }
      return [pair, best];
    }),
  ) as Record<VelocityPair, DistinctCount>;
  return {
    ages,
    // A late event may find its identity last seen after it: its own predecessor is then unknown.
    secondsSincePreviousEvent: last !== undefined && last <= at ? Math.floor((at - last) / 1000) : -1,
    mainKind: main?.kind ?? 'email',
    velocity,
  };
}

function ageSeconds(snapshot: IdentitySnapshot, at: number): number {
  const first = snapshot.firstSeenAt;
  return first !== undefined && first < at ? Math.floor((at - first) / 1000) : 0;
}

/** The facts as workflow variables (declared in variables.ts IDENTITY_TIME_FIELDS). */
export function identityTimeFields(facts: IdentityTimeFacts): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const kind of AGED_KINDS) fields[AGE_FIELD[kind]] = facts.ages[kind];
  fields.secondsSincePreviousEvent = facts.secondsSincePreviousEvent;
  for (const pair of Object.keys(VELOCITY_PAIRS) as VelocityPair[]) {
    for (const window of ['m15', 'h1', 'h24'] as const) {
      fields[`${PAIR_FIELD[pair]}${WINDOW_SUFFIX[window]}`] = facts.velocity[pair][window];
    }
  }
  return fields;
}

/**
 * The fields above, each with what it measures: the variable catalog (variables.ts) takes their names,
 * variable-meanings.ts words them.
 */
export type IdentityTimeField = { name: string } & (
  | { measures: 'age'; kind: AgedKind }
  | { measures: 'secondsSincePrevious' }
  | { measures: 'velocity'; holder: IdentityKind; counted: IdentityKind; window: VelocityWindow }
);

export function identityTimeFieldList(): IdentityTimeField[] {
  const ages = AGED_KINDS.map(
    (kind): IdentityTimeField => ({ name: AGE_FIELD[kind], measures: 'age', kind }),
  );
  const velocity = (Object.keys(VELOCITY_PAIRS) as VelocityPair[]).flatMap((pair) => {
    const [holder, counted] = VELOCITY_PAIRS[pair];
    return (['m15', 'h1', 'h24'] as const).map(
      (window): IdentityTimeField => ({
        name: `${PAIR_FIELD[pair]}${WINDOW_SUFFIX[window]}`,
        measures: 'velocity',
        holder,
        counted,
        window,
      }),
    );
  });
  return [...ages, { name: 'secondsSincePreviousEvent', measures: 'secondsSincePrevious' }, ...velocity];
}

/** "4 seconds", "3 minutes", "2 hours", "5 days". */
export function durationWords(seconds: number): string {
  if (seconds < 120) return plural(seconds, 'second');
  if (seconds < 7_200) return plural(Math.floor(seconds / 60), 'minute');
  if (seconds < 172_800) return plural(Math.floor(seconds / 3_600), 'hour');
  return plural(Math.floor(seconds / 86_400), 'day');
}

/**
 * An event this soon after its main identity's previous one was sent by a script, not typed: an
 * order 4 s after its e-mail signed up, a payout change 10 s after the login. People who create an
 * account at checkout take minutes.
 */
export const SCRIPT_SPEED_SECONDS = 20;
/** Honest guest-to-account checkouts order within minutes; under this an identity is young. */
export const YOUNG_SECONDS = 600;
/** Other identities around a device, card or address in one hour before velocity counts. */
export const VELOCITY_FLOOR = 2;

/** What the signals below read: every scored type but returns carries its time facts. */
interface Timed {
  time: IdentityTimeFacts;
}

/**
 * The event came this soon after its main identity's previous one: fadeAround(seconds,
 * `SCRIPT_SPEED_SECONDS`), about 1 within 10 s, 0.5 at 20 s, under 1 % past a minute (then silent),
 * with `order 4 seconds after this e-mail's previous event`. `eventWord` names the event type.
 */
export const scriptSpeedAfterPreviousEvent = (eventWord: string) =>
  declareSignal('scriptSpeedAfterPreviousEvent', ({ time }: Timed) => {
    const since = time.secondsSincePreviousEvent;
    const value = since < 0 ? 0 : fadeAround(since, SCRIPT_SPEED_SECONDS);
    if (value < SILENT_BELOW) return undefined;
    return {
      value,
      evidence: `${eventWord} ${durationWords(since)} after this ${kindWord(time.mainKind)}'s previous event`,
    };
  });

/**
 * How far an event came at a script's speed after one of `identities` first appeared (an order
 * seconds after its e-mail signed up): fadeAround(seconds, `SCRIPT_SPEED_SECONDS`) for the earliest
 * sighting, read to the millisecond so a script under a second counts fully; 0 when all of them are
 * first seen at this event.
 */
export function scriptSpeedAfterFirstSighting(identities: readonly IdentitySnapshot[], at: number): number {
  let fastest = 0;
  for (const identity of identities) {
    const first = identity.firstSeenAt;
    if (first === undefined || first >= at) continue;
    fastest = Math.max(fastest, fadeAround((at - first) / 1000, SCRIPT_SPEED_SECONDS));
  }
  return fastest;
}

/**
 * The event's identity of kind `young` (orders: the e-mail; account updates: the account) was first
 * seen less than `YOUNG_SECONDS` before it, not at this event: 1 - age / YOUNG_SECONDS.
 */
export const youngIdentity = (young: AgedKind) =>
  declareSignal('youngIdentity', ({ time }: Timed) => {
    const age = time.ages[young];
    if (age <= 0 || age >= YOUNG_SECONDS) return undefined;
    return {
      value: 1 - age / YOUNG_SECONDS,
      evidence: `${KIND_WORDS[young]} first seen ${durationWords(age)} ago`,
    };
  });

/**
 * At least `VELOCITY_FLOOR` distinct other identities appeared around the event's device, card or
 * address in the last hour, the most of the velocity pairs the event type reads (`pairs`): log2(n).
 */
export const newIdentitiesAroundLastHour = (pairs: readonly VelocityPair[]) =>
  declareSignal('newIdentitiesAroundLastHour', ({ time }: Timed) => {
    let burst = { count: 0, pair: undefined as VelocityPair | undefined };
    for (const pair of pairs) {
      const count = time.velocity[pair].h1;
      if (count > burst.count) burst = { count, pair };
    }
    if (burst.count < VELOCITY_FLOOR || !burst.pair) return undefined;
    const [holder, counted] = VELOCITY_PAIRS[burst.pair];
    return {
      value: saturating(burst.count - 1),
      evidence: `${KIND_WORDS[holder]} seen with ${plural(burst.count, `other ${KIND_WORDS[counted]}`)} in the last hour`,
    };
  });
