import type { EventType } from '../contract/endpoints.ts';
import { type IdentityKind, sameIdentity } from '../identity/identities.ts';
import type { DecisionOutcome } from '../schemas/decision.ts';
import type { IdentitySnapshot } from './identity-snapshot.ts';
import { appliesTo, type ListMarker, noteWords } from './list-marker.ts';
import { KIND_WORDS } from './signals/signal.ts';

/**
 * Block, watch and allow lists as a decision sees them: the entries on the event's identities, read
 * from the identity items the decision already reads (shared/store/list-markers.ts), as of the
 * event's own time. A block declines (returns: reviews) whatever the score; an allowed customer is
 * never declined by the workflow; a watched identity is a model signal, not an override. Pure.
 */

/** An identity's entry of one list, as the decision quotes it. */
export interface ListHit {
  kind: IdentityKind;
  marker: ListMarker;
}

/** A watched identity: its earliest entry for the type, and its history as of the event. */
export interface WatchHit extends ListHit {
  identity: IdentitySnapshot;
}

/** What the lists say of one event (every marker already read as of the event's time). */
export interface ListVerdict {
  /** An entry blocking an identity of the event for its type (the newest, when several do). */
  blocked: ListHit | undefined;
  /** An allow entry on the event's customer (orders and returns: its e-mail; else the account). */
  allowed: ListHit | undefined;
  /** The event's identities on the watch list for its type, each with its earliest entry. */
  watched: readonly ListHit[];
}

/**
 * The lists' verdict on an event: `identities` are every identity it names, `customers` the ones
 * that are the customer (orders and returns: the e-mail; signups, logins, account updates: the account).
 */
export function listVerdict(
  eventType: EventType,
  identities: readonly IdentitySnapshot[],
  customers: readonly IdentitySnapshot[],
): ListVerdict {
  let blocked: ListHit | undefined;
  let allowed: ListHit | undefined;
  for (const snapshot of identities) {
    for (const marker of snapshot.lists) {
      if (!appliesTo(marker, eventType)) continue;
      if (marker.list === 'block' && (!blocked || marker.since > blocked.marker.since)) {
        blocked = { kind: snapshot.ref.kind, marker };
      } else if (marker.list === 'allow' && customers.some((c) => sameIdentity(c.ref, snapshot.ref))) {
        allowed ??= { kind: snapshot.ref.kind, marker };
      }
    }
  }
  return { blocked, allowed, watched: watchedOf(eventType, identities) };
}

/** The identities on the watch list for the event type, each with its earliest entry. */
export function watchedOf(eventType: EventType, identities: readonly IdentitySnapshot[]): WatchHit[] {
  const watched: WatchHit[] = [];
  for (const snapshot of identities) {
    let watch: ListMarker | undefined;
    for (const marker of snapshot.lists) {
      if (marker.list === 'watch' && appliesTo(marker, eventType) && (!watch || marker.since < watch.since))
        watch = marker;
    }
    if (watch) watched.push({ kind: snapshot.ref.kind, marker: watch, identity: snapshot });
  }
  return watched;
}

/** The lists as workflow variables of every event type (variables.ts), so merchants' rules can read them. */
export const LIST_FIELDS = [
  { name: 'onBlockList', type: 'bool' },
  { name: 'onAllowList', type: 'bool' },
  { name: 'watchListedIdentities', type: 'int' },
] as const;
export type ListFieldName = (typeof LIST_FIELDS)[number]['name'];

export function listFields(verdict: ListVerdict | undefined): {
  onBlockList: boolean;
  onAllowList: boolean;
  watchListedIdentities: number;
} {
  return {
    onBlockList: verdict?.blocked !== undefined,
    onAllowList: verdict?.allowed !== undefined,
    watchListedIdentities: verdict?.watched.length ?? 0,
  };
}

const BLOCK_LIST_BRANCH = 'block_list';
const ALLOW_LIST_BRANCH = 'allow_list';

/**
 * The lists applied after the workflow: block over allow over the workflow. A block declines; a
 * blocked return goes to review instead when the workflow can review (refusing a return is for a
 * person to confirm), unless the workflow declined it anyway. An allowed customer's DECLINE becomes
 * APPROVE; REVIEW and APPROVE stand. Reads only the fields `onBlockList` and `onAllowList`, so a
 * backtest re-applies it from a stored decision's fields.
 */
export function applyLists(
  branch: { decision: DecisionOutcome; name: string },
  eventType: EventType,
  canReview: boolean,
  fields: Readonly<Record<string, unknown>>,
): { decision: DecisionOutcome; name: string; by?: 'block' | 'allow' } {
  if (fields.onBlockList === true) {
    const review = eventType === 'return' && canReview && branch.decision !== 'DECLINE';
    return { decision: review ? 'REVIEW' : 'DECLINE', name: BLOCK_LIST_BRANCH, by: 'block' };
  }
  if (fields.onAllowList === true && branch.decision === 'DECLINE') {
    return { decision: 'APPROVE', name: ALLOW_LIST_BRANCH, by: 'allow' };
  }
  return branch;
}

/**
 * The reason's opening for a list override: `card blocked: lost fraud chargeback on order o-123 on
 * 12 Nov 2026` (the day it acts from, UTC), `e-mail on the allow list: <the reason's first words>`.
 */
export function listReason(verdict: ListVerdict, list: 'block' | 'allow'): string {
  // Called for the list that overrode the branch, so it has an entry.
  const hit = (list === 'block' ? verdict.blocked : verdict.allowed)!;
  const what = KIND_WORDS[hit.kind] ?? hit.kind;
  return list === 'block'
    ? `${what} blocked: ${noteWords(hit.marker.note)} on ${dayOf(hit.marker.since)}`
    : `${what} on the allow list: ${noteWords(hit.marker.note)}`;
}

/** `12 Nov 2026` (UTC): the date part of the RFC 7231 form `Thu, 12 Nov 2026 09:30:15 GMT`. */
export const dayOf = (ms: number): string => new Date(ms).toUTCString().slice(5, 16).replace(/^0/, '');
