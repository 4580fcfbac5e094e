import type { EventType } from '../contract/endpoints.ts';
import type { IdentityKind, IdentityRef } from '../identity/identities.ts';
import type { ListName, ListRule, ListRules } from '../schemas/lists.ts';
import { LIST_RULES } from '../schemas/lists.ts';
import { type NoteCause, noteWords } from '../scoring/list-marker.ts';
import { KIND_WORDS } from '../scoring/signals/signal.ts';
import { derivedEntryId, type ListEntry } from './entries.ts';

/**
 * The feedback rules: confirmed abuse puts the identities behind it on the lists at once, from the
 * feedback's own time, and its counterpart (a WON dispute, a clean disposition, a legitimate review)
 * takes off exactly what it put on. Each rule is switched per merchant, on by default. Pure: the
 * use cases (record-disputes.ts, record-dispositions.ts, resolve-review.ts) write what these give.
 *
 * - lostFraudChargeback: a LOST chargeback (or arbitration) with a fraud reason blocks the order's
 *   card for orders and watches its devices, addresses and phones (the e-mail is the fraudster's
 *   throwaway, and a lost chargeback already weighs on it).
 * - abusiveDisposition: a returned item that came back an empty box, counterfeit, or removed as
 *   suspected abuse (not damaged or lost in transit) watches the return's e-mails, cards, devices
 *   and addresses; one set of entries per return, however many of its items did.
 * - abuseReview: a review resolved as abuse watches the event's e-mails, cards, devices and addresses
 *   (never an account: in a takeover it is the victim's).
 */
const DEFAULT_LIST_RULES: ListRules = Object.fromEntries(LIST_RULES.map((rule) => [rule, true])) as ListRules;

/** The rules as stored on the merchant profile (absent or partial: the defaults fill in). */
export function listRulesOf(stored: unknown): ListRules {
  const rules = { ...DEFAULT_LIST_RULES };
  if (stored !== null && typeof stored === 'object') {
    for (const rule of LIST_RULES) {
      const value = (stored as Partial<Record<ListRule, unknown>>)[rule];
      if (typeof value === 'boolean') rules[rule] = value;
    }
  }
  return rules;
}

/**
 * Dispute reasons that mean fraud (compared upper-cased, spaces removed): the generic words, every
 * Visa 10.x (fraud) code and the legacy Visa 83, Mastercard 4837, 4840, 4849, 4863, 4870 and
 * 4871, American Express F24, F29, F30, F31 and FR2, FR4, FR6, and Discover UA01, UA02, UA05, UA06.
 */
const FRAUD_REASONS = new Set([
  'FRAUD',
  'FRAUDULENT',
  'UNAUTH',
  'UNAUTHORIZED',
  'UNAUTHORISED',
  '83',
  '4837',
  '4840',
  '4849',
  '4863',
  '4870',
  '4871',
  'F24',
  'F29',
  'F30',
  'F31',
  'FR2',
  'FR4',
  'FR6',
  'UA01',
  'UA02',
  'UA05',
  'UA06',
]);
const VISA_FRAUD = /^10\.\d$/;

export function isFraudReason(reason: string): boolean {
  const code = reason.toUpperCase().replace(/\s+/g, '');
  return FRAUD_REASONS.has(code) || VISA_FRAUD.test(code);
}

/** A lost chargeback (or arbitration) for fraud: an inquiry is no chargeback. */
export const isLostFraudDispute = (event: {
  disputeType: string;
  disputeStatus: string;
  disputeReason: string;
}) => event.disputeStatus === 'LOST' && event.disputeType !== 'INQUIRY' && isFraudReason(event.disputeReason);

/** What one feedback makes: its rule, its cause, the event it concerns, when it acts from, and the words. */
interface Feedback {
  rule: ListRule;
  cause: string;
  concerns: { word: string; id: string };
  note: NoteCause;
  /** Words added to the entry's reason after the note (`dispute d-9, reason 10.4`). */
  detail: string | undefined;
  effectiveAt: number;
}

function entriesOf(
  feedback: Feedback,
  targets: readonly { ref: IdentityRef; list: ListName; eventTypes?: EventType[] }[],
  now: number,
): ListEntry[] {
  const { word, id } = feedback.concerns;
  const ref = feedback.note === 'review' ? `${word} ${id}` : id;
  const words = noteWords({ cause: feedback.note, ref });
  return targets.map((target) => ({
    entryId: derivedEntryId(feedback.cause, target.list, target.ref),
    list: target.list,
    kind: target.ref.kind as ListEntry['kind'],
    digest: target.ref.digest,
    identity: `${KIND_WORDS[target.ref.kind] ?? target.ref.kind} of ${word} ${id}`,
    reason: feedback.detail ? `${words} (${feedback.detail})` : words,
    source: 'feedback' as const,
    createdBy: feedback.rule,
    createdAt: new Date(now).toISOString(),
    effectiveAt: new Date(feedback.effectiveAt).toISOString(),
    ...(target.eventTypes ? { eventTypes: target.eventTypes } : {}),
    cause: feedback.cause,
    concerns: `${word} ${id}`,
    note: { cause: feedback.note, ref },
  }));
}

const ofKinds = (refs: readonly IdentityRef[], kinds: readonly IdentityKind[]) =>
  refs.filter((ref) => kinds.includes(ref.kind));

/** lostFraudChargeback: block the order's cards for orders, watch its devices, addresses, phones. */
export function chargebackEntries(
  order: { providerOrderId: string; identities: readonly IdentityRef[] },
  dispute: { disputeId: string; disputeReason: string; lostAt: number },
  now: number,
): ListEntry[] {
  const feedback: Feedback = {
    rule: 'lostFraudChargeback',
    cause: `dispute:${dispute.disputeId}`,
    concerns: { word: 'order', id: order.providerOrderId },
    note: 'chargeback',
    detail: `dispute ${dispute.disputeId}, reason ${dispute.disputeReason}`,
    effectiveAt: dispute.lostAt,
  };
  return entriesOf(
    feedback,
    [
      ...ofKinds(order.identities, ['card']).map((ref) => ({
        ref,
        list: 'block' as const,
        eventTypes: ['order' as const],
      })),
      ...ofKinds(order.identities, ['device', 'address', 'phone']).map((ref) => ({
        ref,
        list: 'watch' as const,
      })),
    ],
    now,
  );
}

const WATCHED_BEHIND_ABUSE: readonly IdentityKind[] = ['email', 'card', 'device', 'address'];

/** The conditions and outcome that confirm abuse of a returned item, by the words they put on lists. */
export function abusiveDispositionCause(item: {
  returnedItemCondition: string;
  dispositionOutcome: string;
}): NoteCause | undefined {
  const condition = item.returnedItemCondition;
  if (condition === 'EMPTY_BOX') return 'emptyBox';
  if (condition === 'COUNTERFEIT_ITEM') return 'counterfeit';
  // Carrier damage and loss are not the customer's doing.
  if (condition === 'DAMAGED_ITEM' || condition === 'LOST_ITEM') return undefined;
  return item.dispositionOutcome === 'REMOVE_SUSPECT_ABUSE' ? 'suspectedAbuse' : undefined;
}

/** abusiveDisposition: watch the return's e-mails, cards, devices and addresses. */
export function dispositionEntries(
  returned: { providerReturnId: string; identities: readonly IdentityRef[] },
  note: NoteCause,
  now: number,
): ListEntry[] {
  const feedback: Feedback = {
    rule: 'abusiveDisposition',
    cause: `disposition:${returned.providerReturnId}`,
    concerns: { word: 'return', id: returned.providerReturnId },
    note,
    detail: undefined,
    effectiveAt: now,
  };
  return entriesOf(
    feedback,
    ofKinds(returned.identities, WATCHED_BEHIND_ABUSE).map((ref) => ({ ref, list: 'watch' as const })),
    now,
  );
}

/** abuseReview: watch the reviewed event's e-mails, cards, devices and addresses. */
export function reviewEntries(
  review: { reviewId: string; eventType: EventType; providerId: string; identities: readonly IdentityRef[] },
  now: number,
): ListEntry[] {
  const feedback: Feedback = {
    rule: 'abuseReview',
    cause: `review:${review.reviewId}`,
    concerns: { word: review.eventType, id: review.providerId },
    note: 'review',
    detail: undefined,
    effectiveAt: now,
  };
  return entriesOf(
    feedback,
    ofKinds(review.identities, WATCHED_BEHIND_ABUSE).map((ref) => ({ ref, list: 'watch' as const })),
    now,
  );
}
