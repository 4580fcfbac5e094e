import type { IdentityRef } from '../identity/identities.ts';

/**
 * What the opt-in network tells a member's decision about one of its identities: the reputation
 * other members built for it, the reading merchant's own contribution taken out, as of the event's
 * time. Counts only: no merchant, amount, item, name or raw value ever reaches scoring.
 */
export const NETWORK_ABUSE_KINDS = ['chargeback', 'disposition', 'review', 'takeover'] as const;
export type NetworkAbuseKind = (typeof NETWORK_ABUSE_KINDS)[number];

/** Identity kinds the network shares: the ones a ring keeps and an honest household rarely lends out. */
const NETWORK_KINDS = ['card', 'device', 'email'] as const;
export type NetworkKind = (typeof NETWORK_KINDS)[number];

export const isNetworkKind = (kind: string): kind is NetworkKind =>
  (NETWORK_KINDS as readonly string[]).includes(kind);

/** Confirmed abuse of one kind at other merchants: how many causes, and the latest one's time. */
export interface NetworkAbuse {
  count: number;
  latestAt: number | undefined;
}

export interface NetworkReputation {
  ref: IdentityRef;
  abuse: Readonly<Record<NetworkAbuseKind, NetworkAbuse>>;
  /** Other merchants whose first sighting of the identity fell in the 24 h before the event. */
  newMerchantsLastDay: number;
  /** Other merchants that have seen it, and the earliest first sighting among them. */
  merchants: number;
  firstSeenAt: number | undefined;
}
