import type { EventType } from '../contract/endpoints.ts';
import type { ModelThresholds } from '../scoring/model.ts';
import type { FieldValue } from '../scoring/variables.ts';

/**
 * Label rules: which decided events turned out abusive, from the feedback that concerns them. Pure:
 * rows in (decided events of every type and the feedback records), labeled training rows out. The
 * store (or an S3 export) supplies the rows; nothing here knows where they came from.
 */

/** One decided event as stored: its identities, time and the variables of each decision it got. */
export interface DecidedEventRow {
  eventType: EventType;
  /** The event's record key (partition key): unique per merchant; reviews point at it. */
  eventKey: string;
  /** The merchant's id of the event (providerOrderId, providerReturnId, ...): what feedback names. */
  eventId: string;
  /** Event time, epoch ms. */
  at: number;
  /** Identities as `kind#digest`. */
  identities: readonly string[];
  /** One decision per part (a return decides per returned line item, in order; others have one). */
  parts: readonly DecisionPart[];
}

interface DecisionPart {
  /** Signal values stored with the decision: the features, exactly as the model saw them then. */
  signals: Readonly<Record<string, number>>;
  abuseScore: number;
  modelVersion: string;
  /** The outcome it got (APPROVE, DECLINE, REVIEW); a declined event's silence says nothing. */
  decision?: string;
  /** The workflow branch that decided it: the reason's stable key (its text carries figures). */
  subDecision?: string;
  /** The value the economics weigh (an order's, a returned line's), when the type has one. */
  value?: number;
  /** What the workflow read besides the signals (the lake keeps them for backtests). */
  fields?: Readonly<Record<string, FieldValue>>;
  modelThresholds?: ModelThresholds;
}

/** Feedback in its current state (a dispute that went LOST then WON is WON). */
export type FeedbackRow =
  | { kind: 'dispute'; orderId: string; status: 'OPEN' | 'RESPONDED' | 'WON' | 'LOST'; at: number }
  | { kind: 'disposition'; returnId: string; line: number; condition: string; outcome: string; at: number }
  | { kind: 'review'; eventKey: string; outcome: 'abuse' | 'legitimate'; at: number };

export interface LabeledRow {
  eventKey: string;
  part: number;
  at: number;
  signals: Readonly<Record<string, number>>;
  abuseScore: number;
  modelVersion: string;
  /** The value the economics weigh (DecisionPart.value), for the trade-off report's costs. */
  value?: number;
  label: 0 | 1;
  /** How much the row counts in training: 1, or less for a pending (unresolved) chargeback. */
  weight: number;
  /** The rule that gave the label, for audits. */
  rule: LabelRule;
  /**
   * True for a positive whose label window is still open (and no review settled it). Its good
   * contemporaries are not usable yet, so a holdout must not judge on such rows: the newest weeks
   * would look all abusive (train.ts).
   */
  provisional?: true;
}

type LabelRule =
  | 'lost_chargeback'
  | 'pending_chargeback'
  | 'abusive_disposition'
  | 'repeated_heavily_used'
  | 'review_abuse'
  | 'review_legitimate'
  | 'linked_abuse_within_90_days'
  | 'no_abuse_in_window';

const DAY_MS = 86_400_000;

/** How long after an event its label can still change; once closed, no feedback means not abusive. */
export const LABEL_WINDOW_DAYS: Record<EventType, number> = {
  // Card networks give about 60 days for most chargeback reasons.
  order: 60,
  // Warehouses inspect and dispose of a return within weeks.
  return: 30,
  // Account events are judged by what the account does later.
  signup: 90,
  login: 90,
  account: 90,
};

/** An unresolved chargeback is likely but not certain abuse. */
export const PENDING_CHARGEBACK_WEIGHT = 0.5;
const ABUSIVE_CONDITIONS: ReadonlySet<string> = new Set(['EMPTY_BOX', 'COUNTERFEIT_ITEM']);
const ABUSIVE_OUTCOMES: ReadonlySet<string> = new Set(['REMOVE_SUSPECT_ABUSE']);
/** Account events inherit abuse from the same customer, e-mail or device (not address: households). */
const ACCOUNT_LINK_KINDS = ['customer', 'email', 'device'];

/**
 * An event the live model declined that got no feedback: what it would have led to can never be
 * observed (a declined order ships nothing), so it is no label, but a candidate that would approve
 * it is a guess no holdout can check (train.ts: the promotion rule keeps such declines).
 */
export interface CensoredRow {
  eventKey: string;
  part: number;
  at: number;
  signals: Readonly<Record<string, number>>;
}

/**
 * Labels the events of `eventType` usable at `now` (training's "now": the latest event time the
 * merchant has sent). An event is usable once its label window has closed or it already carries a
 * positive label; a resolved review is final either way. A declined event without feedback is not
 * usable: what it would have led to was never observed.
 */
export function labelEvents(
  eventType: EventType,
  events: readonly DecidedEventRow[],
  feedback: readonly FeedbackRow[],
  now: number,
): LabeledRow[] {
  return classifyEvents(eventType, events, feedback, now).labeled;
}

/** The labeled rows, and the declined events whose outcome was never observed (censored). */
export function classifyEvents(
  eventType: EventType,
  events: readonly DecidedEventRow[],
  feedback: readonly FeedbackRow[],
  now: number,
): { labeled: LabeledRow[]; censored: CensoredRow[] } {
  const index = indexFeedback(events, feedback);
  const windowMs = LABEL_WINDOW_DAYS[eventType] * DAY_MS;
  const labeled: LabeledRow[] = [];
  const censored: CensoredRow[] = [];
  for (const event of events) {
    if (event.eventType !== eventType || event.at > now) continue;
    const windowClosed = now - event.at >= windowMs;
    event.parts.forEach((part, partIndex) => {
      const found = labelOf(event, partIndex, index);
      const final = found.rule === 'review_abuse' || found.rule === 'review_legitimate';
      // A declined order never ships, a declined return is never refunded: no chargeback or
      // disposition can follow, so "no feedback" is no evidence of good behaviour (censored).
      if (part.decision === 'DECLINE' && found.rule === 'no_abuse_in_window') {
        censored.push({ eventKey: event.eventKey, part: partIndex, at: event.at, signals: part.signals });
        return;
      }
      if (!windowClosed && found.label === 0 && !final) return;
      labeled.push({
        ...(!windowClosed && !final ? { provisional: true as const } : {}),
        eventKey: event.eventKey,
        part: partIndex,
        at: event.at,
        signals: part.signals,
        abuseScore: part.abuseScore,
        modelVersion: part.modelVersion,
        ...(part.value !== undefined ? { value: part.value } : {}),
        ...found,
      });
    });
  }
  return { labeled, censored };
}

type Label = Pick<LabeledRow, 'label' | 'weight' | 'rule'>;

const positive = (rule: LabelRule, weight = 1): Label => ({ label: 1, weight, rule });
const negative = (rule: LabelRule): Label => ({ label: 0, weight: 1, rule });

interface FeedbackIndex {
  disputeStatuses: Map<string, string[]>;
  reviewByEvent: Map<string, 'abuse' | 'legitimate'>;
  /** Abusive return lines by `returnId#line`, with the rule that made them abusive. */
  abusiveLines: Map<string, LabelRule>;
  /** Abuse landing on an identity, at the abusive event's time: for account events. */
  abuseTimesByIdentity: Map<string, number[]>;
}

function labelOf(event: DecidedEventRow, part: number, index: FeedbackIndex): Label {
  const review = index.reviewByEvent.get(event.eventKey);
  switch (event.eventType) {
    case 'order': {
      const statuses = index.disputeStatuses.get(event.eventId) ?? [];
      // Money actually lost outranks a reviewer's opinion; a WON dispute adds nothing.
      if (statuses.includes('LOST')) return positive('lost_chargeback');
      if (review === 'abuse') return positive('review_abuse');
      if (review === 'legitimate') return negative('review_legitimate');
      if (statuses.includes('OPEN') || statuses.includes('RESPONDED'))
        return positive('pending_chargeback', PENDING_CHARGEBACK_WEIGHT);
      return negative('no_abuse_in_window');
    }
    case 'return': {
      const rule = index.abusiveLines.get(`${event.eventId}#${part}`);
      if (rule) return positive(rule);
      if (review === 'abuse') return positive('review_abuse');
      if (review === 'legitimate') return negative('review_legitimate');
      return negative('no_abuse_in_window');
    }
    default: {
      // An account takeover or fake account confirmed by review.
      if (review === 'abuse') return positive('review_abuse');
      if (review === 'legitimate') return negative('review_legitimate');
      const until = event.at + LABEL_WINDOW_DAYS[event.eventType] * DAY_MS;
      const linked = event.identities
        .filter((id) => ACCOUNT_LINK_KINDS.includes(id.slice(0, id.indexOf('#'))))
        .some((id) => (index.abuseTimesByIdentity.get(id) ?? []).some((t) => t >= event.at && t <= until));
      return linked ? positive('linked_abuse_within_90_days') : negative('no_abuse_in_window');
    }
  }
}

function indexFeedback(events: readonly DecidedEventRow[], feedback: readonly FeedbackRow[]): FeedbackIndex {
  const disputeStatuses = new Map<string, string[]>();
  const reviewByEvent = new Map<string, 'abuse' | 'legitimate'>();
  const abusiveLines = new Map<string, LabelRule>();
  const returnsById = new Map<string, DecidedEventRow>();
  const ordersById = new Map<string, DecidedEventRow>();
  for (const event of events) {
    if (event.eventType === 'return') returnsById.set(event.eventId, event);
    if (event.eventType === 'order') ordersById.set(event.eventId, event);
  }
  const heavilyUsed: (FeedbackRow & { kind: 'disposition' })[] = [];
  for (const row of feedback) {
    if (row.kind === 'dispute') {
      disputeStatuses.set(row.orderId, [...(disputeStatuses.get(row.orderId) ?? []), row.status]);
    } else if (row.kind === 'review') {
      reviewByEvent.set(row.eventKey, row.outcome);
    } else if (ABUSIVE_CONDITIONS.has(row.condition) || ABUSIVE_OUTCOMES.has(row.outcome)) {
      abusiveLines.set(`${row.returnId}#${row.line}`, 'abusive_disposition');
    } else if (row.condition === 'HEAVILY_USED') heavilyUsed.push(row);
  }
  // HEAVILY_USED alone is wear; the same customer (any shared identity) doing it again is abuse.
  const seen = new Set<string>();
  const ordered = [...heavilyUsed].sort(
    (a, b) => a.at - b.at || a.returnId.localeCompare(b.returnId) || a.line - b.line,
  );
  for (const row of ordered) {
    const identities = returnsById.get(row.returnId)?.identities ?? [`return#${row.returnId}`];
    const key = `${row.returnId}#${row.line}`;
    if (identities.some((id) => seen.has(id)) && !abusiveLines.has(key))
      abusiveLines.set(key, 'repeated_heavily_used');
    for (const id of identities) seen.add(id);
  }
  const abuseTimesByIdentity = new Map<string, number[]>();
  const landOn = (event: DecidedEventRow | undefined) => {
    if (!event) return;
    for (const id of event.identities)
      abuseTimesByIdentity.set(id, [...(abuseTimesByIdentity.get(id) ?? []), event.at]);
  };
  for (const [orderId, statuses] of disputeStatuses)
    if (statuses.includes('LOST')) landOn(ordersById.get(orderId));
  for (const key of abusiveLines.keys()) landOn(returnsById.get(key.slice(0, key.lastIndexOf('#'))));
  // Abuse confirmed by review (an account takeover, a fake account) lands on the device only: the
  // account and e-mail of a takeover are the victim's, the device is the attacker's.
  const eventsByKey = new Map(events.map((event) => [event.eventKey, event]));
  for (const [eventKey, outcome] of reviewByEvent) {
    const reviewed = eventsByKey.get(eventKey);
    if (outcome !== 'abuse' || !reviewed) continue;
    for (const id of reviewed.identities.filter((id) => id.startsWith('device#')))
      abuseTimesByIdentity.set(id, [...(abuseTimesByIdentity.get(id) ?? []), reviewed.at]);
  }
  return { disputeStatuses, reviewByEvent, abusiveLines, abuseTimesByIdentity };
}
