import type { IdentitySnapshot } from '../identity-snapshot.ts';

/** A signal's model input and the plain words that explain it when it drives a score. */
export interface Signal {
  value: number;
  evidence: string;
}

export type Signals = Record<string, Signal>;

/** Diminishing returns: 1 event -> 1, 3 -> 2, 7 -> 3. */
export const saturating = (count: number) => (count > 0 ? Math.log2(1 + count) : 0);

export { plural } from '../../plural.ts';

/** Largest windowed count of a metric over some identities, with the identity that holds it. */
export function maxCount(
  snapshots: readonly IdentitySnapshot[],
  metric: string,
  window: 'm15' | 'h1' | 'h24' | 'd30' | 'd365' | 'lifetime',
): { count: number; kind: string | undefined } {
  let best = { count: 0, kind: undefined as string | undefined };
  for (const snapshot of snapshots) {
    const count = snapshot.count(metric)[window];
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

/** Keeps only signals that fired. */
export function fired(entries: Record<string, Signal | undefined>): Signals {
  const out: Signals = {};
  for (const [name, signal] of Object.entries(entries)) if (signal && signal.value !== 0) out[name] = signal;
  return out;
}
