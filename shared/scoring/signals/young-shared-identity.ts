import type { IdentityKind, IdentityRef } from '../../identity/identities.ts';
import { plural } from '../../plural.ts';
import type { IdentitySnapshot } from '../identity-snapshot.ts';
import { durationWords } from './identity-time.ts';
import { declareSignal, fadeAround, KIND_WORDS, SILENT_BELOW, type Signal, saturating } from './signal.ts';

/**
 * Fresh accounts gathering on a young device, phone or card: the identity was first seen recently
 * and other accounts (or e-mails) arrived on it faster than one per `paceSeconds` of its life, the
 * pace fading smoothly around that boundary (fadeAround: half at exactly one per `paceSeconds`). Read
 * from what identity items already hold (first sighting and linked members), so it costs no storage
 * and needs no label: the first wave of a ring or an account farm shows it before any feedback.
 * An old household device gathers its members over months, far slower than the pace.
 */
export interface YoungSharedIdentity {
  /** Other accounts or e-mails linked to it, the event's own left out. */
  others: number;
  kind: IdentityKind;
  ageSeconds: number;
  /** log2(1 + others), faded by the pace: the signal's value. */
  value: number;
}

export function youngSharedIdentity(
  holders: readonly IdentitySnapshot[],
  counted: IdentityKind,
  own: readonly IdentityRef[],
  at: number,
  paceSeconds: number,
  /** Others the event's household explains (household.ts): they do not count. */
  explained = 0,
): YoungSharedIdentity | undefined {
  let best: YoungSharedIdentity | undefined;
  for (const holder of holders) {
    // First sighting now: nobody else is on it yet.
    if (holder.firstSeenAt === undefined) continue;
    const ageSeconds = Math.max(0, Math.floor((at - holder.firstSeenAt) / 1000));
    const ownLinked = own.filter(
      (ref) => ref.kind === counted && holder.isLinked(counted, ref.digest),
    ).length;
    const others = holder.linkedCount(counted) - ownLinked;
    if (others <= explained) continue;
    const value = saturating(others - explained) * fadeAround(ageSeconds, others * paceSeconds);
    if (value < SILENT_BELOW) continue;
    if (!best || value > best.value) best = { others, kind: holder.ref.kind, ageSeconds, value };
  }
  return best;
}

/** The model signal `freshAccountsOnYoungIdentity` of a finding, times `weight` (0..1). */
export function freshAccountsSignal(
  found: YoungSharedIdentity | undefined,
  counted: IdentityKind,
  weight = 1,
): Signal | undefined {
  if (!found || found.value * weight < SILENT_BELOW) return undefined;
  return {
    value: found.value * weight,
    evidence: `${KIND_WORDS[found.kind]} first seen ${durationWords(found.ageSeconds)} ago, already used with ${plural(found.others, `other ${KIND_WORDS[counted]}`)}`,
  };
}

/**
 * The signal `freshAccountsOnYoungIdentity`, for an event type that says which of its identities
 * may hold a wave (`holders`), what gathers on them (`counted`, the event's `own` left out), at what
 * pace, where only some events can be part of a wave, how far this one can (`weight`, 0..1), and
 * how many of the others the event's household explains (`household`, household.ts).
 */
export const freshAccountsOnYoungIdentity = <Input extends { at: number }>(reading: {
  holders: (input: Input) => readonly IdentitySnapshot[];
  counted: IdentityKind;
  own: (input: Input) => readonly IdentityRef[];
  paceSeconds: number;
  weight?: (input: Input) => number;
  household?: (input: Input) => number;
}) =>
  declareSignal('freshAccountsOnYoungIdentity', (input: Input) => {
    const weight = reading.weight ? reading.weight(input) : 1;
    if (weight <= 0) return undefined;
    const found = youngSharedIdentity(
      reading.holders(input),
      reading.counted,
      reading.own(input),
      input.at,
      reading.paceSeconds,
      reading.household?.(input) ?? 0,
    );
    return freshAccountsSignal(found, reading.counted, weight);
  });

/** Signups: every account is new, so a device or phone gathering more than one per 2 days is a farm. */
export const SIGNUP_ACCOUNT_PACE_SECONDS = 2 * 86_400;
/**
 * Orders: fresh e-mails on a card or device first seen within a week per other e-mail (a ring's
 * wave), weighed by how fresh the order's own e-mail is (fadeAround its age, a week).
 */
export const ORDER_EMAIL_PACE_SECONDS = 7 * 86_400;
