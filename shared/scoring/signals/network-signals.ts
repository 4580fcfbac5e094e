import { NETWORK_ABUSE_KINDS, type NetworkAbuseKind, type NetworkReputation } from '../network-reputation.ts';
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

const ABUSE_WORDS: Record<NetworkAbuseKind, { one: string; many: (n: number) => string }> = {
  chargeback: {
    one: 'lost a fraud chargeback at another merchant',
    many: (n) => `lost ${n} fraud chargebacks at other merchants`,
  },
  disposition: {
    one: 'had an abusive return at another merchant',
    many: (n) => `had ${n} abusive returns at other merchants`,
  },
  review: {
    one: 'had an order confirmed as abuse at another merchant',
    many: (n) => `had ${n} events confirmed as abuse at other merchants`,
  },
  takeover: {
    one: 'was in a confirmed account takeover at another merchant',
    many: (n) => `was in ${n} confirmed account takeovers at other merchants`,
  },
};

const DAY_MS = 86_400_000;
const agoWords = (at: number, latestAt: number | undefined) => {
  if (latestAt === undefined) return '';
  const days = Math.floor((at - latestAt) / DAY_MS);
  return days <= 0 ? ' today' : days === 1 ? ' 1 day ago' : ` ${days} days ago`;
};

interface WorstAbuse {
  value: number;
  reputation: NetworkReputation;
  kind: NetworkAbuseKind;
  total: number;
}

/** The identity whose confirmed abuse elsewhere weighs most, and its main kind of abuse. */
const worstAbuse = perEvent(({ network }: Networked): WorstAbuse | undefined => {
  let worst: WorstAbuse | undefined;
  for (const reputation of network ?? []) {
    const total = NETWORK_ABUSE_KINDS.reduce((sum, kind) => sum + reputation.abuse[kind].count, 0);
    if (total === 0) continue;
    const value = (KIND_STRENGTH[reputation.ref.kind] ?? 0) * saturating(total);
    if (worst && worst.value >= value) continue;
    const kind = NETWORK_ABUSE_KINDS.reduce((best, k) =>
      reputation.abuse[k].count > reputation.abuse[best].count ? k : best,
    );
    worst = { value, reputation, kind, total };
  }
  return worst;
});

/** Needs the event's time for "3 days ago". */
export interface NetworkedAt extends Networked {
  at: number;
}

export const networkConfirmedAbuse = declareSignal('networkConfirmedAbuse', (input: NetworkedAt) => {
  const worst = worstAbuse(input);
  if (!worst) return undefined;
  const { reputation, kind } = worst;
  const { count, latestAt } = reputation.abuse[kind];
  const words = count === 1 ? ABUSE_WORDS[kind].one : ABUSE_WORDS[kind].many(count);
  const more = worst.total > count ? ` (${worst.total - count} other confirmed abuse)` : '';
  return {
    value: worst.value,
    evidence: `${KIND_WORDS[reputation.ref.kind]} ${words}${agoWords(input.at, latestAt)}${more}`,
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
