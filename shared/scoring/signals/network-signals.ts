import {
  NETWORK_ABUSE_FLOOR,
  NETWORK_ABUSE_KINDS,
  type NetworkAbuseKind,
  type NetworkReputation,
} from '../network-reputation.ts';
import { declareSignal, KIND_WORDS, perEvent, saturating } from './signal.ts';

/**
 * The opt-in network's signals (shared/network/): what other members confirmed about the event's
 * card, device or e-mail, and how many other members first saw one of them in the last day. A
 * non-member's input carries no network facts, so for it they never fire and its scores are what
 * they would be without the network. The words name no merchant and no amount.
 */
interface Networked {
  network?: readonly NetworkReputation[] | undefined;
}

/**
 * A ring keeps its cards and devices; an e-mail is cheap to replace and its owner's inbox is more
 * often shared or mistyped, so abuse on an e-mail says half as much.
 */
const KIND_STRENGTH: Record<string, number> = { card: 1, device: 1, email: 0.5 };

/** Other merchants that must have first seen an identity in the last day before it says anything. */
export const NETWORK_SIGHTING_FLOOR = 3;

/** What other merchants confirmed, by kind: `n` merchants (never causes). */
const ABUSE_WORDS: Record<NetworkAbuseKind, (n: number) => string> = {
  chargeback: (n) => `lost fraud chargebacks at ${merchantsWords(n)}`,
  disposition: (n) => `had abusive returns at ${merchantsWords(n)}`,
  review: (n) => `had events confirmed as abuse at ${merchantsWords(n)}`,
  takeover: (n) => `was in confirmed account takeovers at ${merchantsWords(n)}`,
};
const merchantsWords = (n: number) => (n === 1 ? 'another merchant' : `${n} other merchants`);

/**
 * How long ago, in bands: a day count would let a member date another merchant's report (and tell
 * one report from the next by the day it moved).
 */
const DAY_MS = 86_400_000;
const AGE_BANDS: readonly [days: number, words: string][] = [
  [7, 'in the last week'],
  [30, 'in the last month'],
  [90, 'in the last 3 months'],
  [365, 'in the last year'],
];
function ageBandWords(at: number, latestAt: number | undefined): string {
  if (latestAt === undefined) return '';
  const days = (at - latestAt) / DAY_MS;
  return ` ${AGE_BANDS.find(([limit]) => days < limit)?.[1] ?? 'over a year ago'}`;
}

interface WorstAbuse {
  value: number;
  reputation: NetworkReputation;
  kind: NetworkAbuseKind;
}

/**
 * The identity whose confirmed abuse elsewhere weighs most, and its main kind of abuse. The reading
 * (shared/network/reputation.ts) shows nothing below NETWORK_ABUSE_FLOOR merchants; above it the
 * value grows as log2 of the merchants past the floor: 1 at the floor, smooth from there on.
 */
const worstAbuse = perEvent(({ network }: Networked): WorstAbuse | undefined => {
  let worst: WorstAbuse | undefined;
  for (const reputation of network ?? []) {
    const merchants = reputation.abuseMerchants;
    if (merchants < NETWORK_ABUSE_FLOOR) continue;
    const value = (KIND_STRENGTH[reputation.ref.kind] ?? 0) * saturating(merchants - NETWORK_ABUSE_FLOOR + 1);
    if (worst && worst.value >= value) continue;
    const kind = NETWORK_ABUSE_KINDS.reduce((best, k) =>
      reputation.abuse[k].count > reputation.abuse[best].count ? k : best,
    );
    worst = { value, reputation, kind };
  }
  return worst;
});

/** Needs the event's time for the age band. */
export interface NetworkedAt extends Networked {
  at: number;
}

export const networkConfirmedAbuse = declareSignal('networkConfirmedAbuse', (input: NetworkedAt) => {
  const worst = worstAbuse(input);
  if (!worst) return undefined;
  const { reputation, kind } = worst;
  const { count, latestAt } = reputation.abuse[kind];
  const all = reputation.abuseMerchants;
  const more = all > count ? ` (confirmed abuse at ${all} other merchants in all)` : '';
  return {
    value: worst.value,
    evidence: `${KIND_WORDS[reputation.ref.kind]} ${ABUSE_WORDS[kind](count)}${ageBandWords(input.at, latestAt)}${more}`,
  };
});

export const networkNewMerchantsLastDay = declareSignal('networkNewMerchantsLastDay', (input: Networked) => {
  let best: NetworkReputation | undefined;
  for (const reputation of input.network ?? []) {
    if (reputation.newMerchantsLastDay >= (best?.newMerchantsLastDay ?? NETWORK_SIGHTING_FLOOR))
      best = reputation;
  }
  if (!best) return undefined;
  const n = best.newMerchantsLastDay;
  return {
    value: saturating(n - NETWORK_SIGHTING_FLOOR + 1),
    evidence: `${KIND_WORDS[best.ref.kind]} first seen at ${n} other merchants in the last day`,
  };
});
