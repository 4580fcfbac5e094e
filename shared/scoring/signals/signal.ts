import type { HistoryWindow, IdentitySnapshot } from '../identity-snapshot.ts';

/** A signal's model input and the plain words that explain it when it drives a score. */
export interface Signal {
  value: number;
  evidence: string;
}

export type Signals = Record<string, Signal>;

/**
 * One signal, declared once: its name (the model's weight key and the workflow variable) and how one
 * event's scoring input gives its value and evidence. `compute` answers undefined, or a value of 0,
 * when the signal does not fire. The event types a declaration belongs to are the registry's lists
 * that hold it (registry.ts); what its value means is documentation, in meanings.ts.
 */
export interface SignalDeclaration<Input, Name extends string = string> {
  readonly name: Name;
  readonly compute: (input: Input) => Signal | undefined;
}

export function declareSignal<Input, Name extends string>(
  name: Name,
  compute: (input: Input) => Signal | undefined,
): SignalDeclaration<Input, Name> {
  return { name, compute };
}

/** The signals that fired for one event, in declaration order (the order decisions record them in). */
export function signalsOf<Input>(declarations: readonly SignalDeclaration<Input>[], input: Input): Signals {
  const out: Signals = {};
  for (const declaration of declarations) {
    const signal = declaration.compute(input);
    if (signal && signal.value !== 0) out[declaration.name] = signal;
  }
  return out;
}

/**
 * A fact several signals of an event read (the account's trusted devices, the customer's own
 * chargebacks), worked out once per scoring input however many signals ask. Only the last input is
 * kept: its signals are computed one after the other (signalsOf), and inputs are never changed.
 */
export function perEvent<Input extends object, Fact>(fact: (input: Input) => Fact): (input: Input) => Fact {
  let lastInput: Input | undefined;
  let lastFact: Fact | undefined;
  return (input) => {
    if (input !== lastInput) {
      lastFact = fact(input);
      lastInput = input;
    }
    return lastFact as Fact;
  };
}

/**
 * A weight that fades smoothly around a boundary instead of switching there: 1 / (1 + (x / b)^4),
 * 94 % at half the boundary, 50 % at it, 6 % at twice it. For a time or a count whose meaning
 * changes over a range (an account's youth, a device's pace), where an if at one constant would make
 * one second or one event decide the whole signal.
 */
export const fadeAround = (x: number, boundary: number) => 1 / (1 + (Math.max(0, x) / boundary) ** 4);

/** x held to 0..1: a ramp's weight. */
export const clampUnit = (x: number) => Math.min(1, Math.max(0, x));

/** A faded signal this small says nothing a decision would name: it is left out. */
export const SILENT_BELOW = 0.01;

/** Diminishing returns: 1 event -> 1, 3 -> 2, 7 -> 3. */
export const saturating = (count: number) => (count > 0 ? Math.log2(1 + count) : 0);

export const KIND_WORDS: Record<string, string> = {
  email: 'e-mail',
  card: 'card',
  device: 'device',
  address: 'address',
  phone: 'phone',
  customer: 'account',
  username: 'username',
  emailDomain: 'e-mail domain',
};

/** `e-mail` for an e-mail; `identity` when the kind is unknown. */
export const kindWord = (kind: string | undefined) => KIND_WORDS[kind ?? ''] ?? 'identity';

/** The most events of a metric on one identity, and that identity's kind. */
export interface MostOnIdentity {
  count: number;
  kind: string | undefined;
}

/** Largest windowed count of a metric over some identities, with the identity that holds it. */
export function maxCount(
  snapshots: readonly IdentitySnapshot[],
  metric: string,
  window: HistoryWindow,
  /** A metric counting some of `metric`'s events, taken off it on each identity. */
  except?: string,
  /** Events on an identity read elsewhere, taken off it too. */
  readElsewhere?: (snapshot: IdentitySnapshot) => number,
): MostOnIdentity {
  let best = { count: 0, kind: undefined as string | undefined };
  for (const snapshot of snapshots) {
    const excepted =
      (except === undefined ? 0 : snapshot.count(except)[window]) + (readElsewhere?.(snapshot) ?? 0);
    const count = snapshot.count(metric)[window] - excepted;
    if (count > best.count) best = { count, kind: snapshot.ref.kind };
  }
  return best;
}

/** Other identities of `kind` seen with these snapshots, not counting the event's own ones. */
export function maxOtherLinks(
  snapshots: readonly IdentitySnapshot[],
  kind: string,
  own: readonly { digest: string }[],
): number {
  let best = 0;
  for (const snapshot of snapshots) {
    const ownLinked = own.filter((ref) => snapshot.isLinked(kind, ref.digest)).length;
    best = Math.max(best, snapshot.linkedCount(kind) - ownLinked);
  }
  return best;
}
