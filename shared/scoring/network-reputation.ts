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

/**
 * Other merchants that must have confirmed abuse on an identity before any of it shows: the network's
 * k-anonymity floor, a privacy rule (what one or two merchants reported alone is never disclosed).
 */
export const NETWORK_ABUSE_FLOOR = 3;

/** Confirmed abuse of one kind: how many other merchants confirmed it, and the latest time. */
export interface NetworkAbuse {
  count: number;
  latestAt: number | undefined;
}

export interface NetworkReputation {
  ref: IdentityRef;
  /**
   * Other merchants that confirmed abuse of any kind on it, each counted once; 0 (and every kind's
   * count 0) below NETWORK_ABUSE_FLOOR.
   */
  abuseMerchants: number;
  abuse: Readonly<Record<NetworkAbuseKind, NetworkAbuse>>;
  /** Other merchants whose first sighting of the identity fell in the 24 h before the event. */
  newMerchantsLastDay: number;
  /** Other merchants that have seen it, and the earliest first sighting among them. */
  merchants: number;
  firstSeenAt: number | undefined;
}
