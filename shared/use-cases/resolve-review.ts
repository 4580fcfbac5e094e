import { uniqueIdentities } from '../identity/identities.ts';
import { parseIdentityIds } from '../identity/identity-ids.ts';
import { METRIC } from '../identity/metrics.ts';
import { listRulesOf, reviewEntries } from '../lists/feedback-rules.ts';
import {
  dispositionsListedUpdate,
  isDispositionsConflict,
  type StoredDispositions,
} from '../store/dispositions.ts';
import { HistoryChanges } from '../store/identity-history.ts';
import { keys, recordIdOf } from '../store/keys.ts';
import { isListConflict } from '../store/list-entries.ts';
import { getRecord } from '../store/record-once.ts';
import {
  getReview,
  publicReview,
  type Review,
  ReviewNotOpenError,
  type ReviewOutcome,
  saveReviewResolution,
} from '../store/reviews.ts';
import { MAX_TRANSACTION_ITEMS, type TransactItems } from '../store/transact.ts';
import { StaleRecordError } from '../store/versioned.ts';
import { webhookOutboxItems } from '../store/webhook-deliveries.ts';
import { readSubscriptions } from '../store/webhooks.ts';
import { type FeedbackListWrites, feedbackListWrites } from './list-feedback.ts';
import { networkFeedbackWrites } from './network-feedback.ts';
import { retryOnStaleRecord } from './retry-stale.ts';

export type ResolveResult =
  | { status: 'resolved'; review: Review }
  | { status: 'not_found' }
  | { status: 'already_resolved'; review: Review };

/** A label moves these counters on the event's identities, at resolution time. */
const LABEL_METRIC: Record<ReviewOutcome, string> = {
  // Counted like an abusive disposition: every model reading abusive returns sees it.
  abuse: METRIC.abusiveReturns,
  // A mitigating count the order model reads with a negative weight.
  legitimate: METRIC.legitimateReviews,
};

/**
 * Resolves an open review (the console, the admin CLI): its label lands on the event's identities
 * like any other feedback, and `review.resolved` goes to the merchant's webhooks; the resolution, the
 * counter moves, the list entries (below) and the outbox item commit in one transaction, so a label
 * is never counted twice. Abuse watches the event's identities (the abuseReview rule); a legitimate
 * return takes off the entries its dispositions put on the lists.
 */
export function resolveReview(input: ResolveInput): Promise<ResolveResult> {
  // A concurrent list change on the same identities: read and plan again.
  return retryOnStaleRecord(() => resolveOnce(input));
}

interface ResolveInput {
  merchantId: string;
  reviewId: string;
  outcome: ReviewOutcome;
  note?: string;
  /** Who resolved it (a console key's holder), kept on the resolution. */
  resolvedBy?: string;
  /** The merchant opted in to the reviewer's note in `review.resolved` webhooks (free text: off by default). */
  noteInWebhooks?: boolean;
  /** Written in the same transaction (the console's audit entry). */
  alsoWrite?: TransactItems;
  now: number;
  /** false for imported history: the resolution is recorded but no webhook is sent. */
  notify?: boolean;
}

/** The review as its webhook shows it: the reviewer's note only where the merchant opted in. */
function notified(review: Review, withNote = false): Review {
  if (withNote || !review.resolution?.note) return review;
  const { note: _note, ...resolution } = review.resolution;
  return { ...review, resolution };
}

async function resolveOnce(input: ResolveInput): Promise<ResolveResult> {
  const { merchantId, reviewId, outcome, now } = input;
  const review = await getReview(merchantId, reviewId);
  if (!review) return { status: 'not_found' };
  if (review.status !== 'open') return { status: 'already_resolved', review };
  const resolution = {
    outcome,
    ...(input.note ? { note: input.note } : {}),
    resolvedAt: new Date(now).toISOString(),
    ...(input.resolvedBy ? { resolvedBy: input.resolvedBy } : {}),
  };
  const resolved: Review = { ...review, status: 'resolved', resolution };
  const identities = uniqueIdentities(parseIdentityIds(review.identities));
  const label = new HistoryChanges().addEach(identities, LABEL_METRIC[outcome], 1, now);
  const subscriptions = input.notify === false ? [] : await readSubscriptions(merchantId);
  const network = outcome === 'abuse' ? await networkContributionOf(review, now) : [];
  const notice = {
    type: 'review.resolved' as const,
    eventType: review.eventType,
    outcomes: review.decisions.map((d) => d.decision),
    data: { eventType: review.eventType, review: publicReview(notified(resolved, input.noteInWebhooks)) },
  };
  const alsoWrite = [
    ...webhookOutboxItems(merchantId, subscriptions, [notice], now),
    ...network,
    ...(input.alsoWrite ?? []),
  ];
  // The resolution (and its note's item), its label on each identity, the further items, and the dispositions' Update.
  const room = MAX_TRANSACTION_ITEMS - 2 - (input.note ? 1 : 0) - label.identityCount - alsoWrite.length;
  const lists = await listWritesOf(review, outcome, now, room);
  label.absorb(lists.history);
  try {
    await saveReviewResolution(review, resolution, [
      // No stale-bucket pruning here (that needs the items read); the next scored event prunes them.
      ...label.toTransactItems(merchantId, new Map(), now),
      ...lists.items,
      ...alsoWrite,
    ]);
  } catch (error) {
    if (isListConflict(error) || isDispositionsConflict(error)) throw new StaleRecordError('review lists');
    if (!(error instanceof ReviewNotOpenError)) throw error;
    const current = await getReview(merchantId, reviewId);
    if (!current) throw error;
    return { status: 'already_resolved', review: current };
  }
  return { status: 'resolved', review: resolved };
}

/**
 * A member's review resolved as abuse confirms it to the network: on a login or an account update
 * a confirmed takeover, otherwise abuse confirmed by review. A review is resolved once, so its
 * contribution is never taken back but by a withdrawal.
 */
async function networkContributionOf(review: Review, now: number): Promise<TransactItems> {
  const profile = await getRecord<Record<string, unknown>>(keys.merchantProfile(review.merchantId));
  const member = (profile?.network as { enabled?: boolean } | undefined)?.enabled === true;
  const takeover = review.eventType === 'login' || review.eventType === 'account';
  return networkFeedbackWrites(
    member,
    [
      {
        merchantId: review.merchantId,
        cause: `review:${review.reviewId}`,
        abuse: { kind: takeover ? 'takeover' : 'review', at: now },
        identities: review.identities,
      },
    ],
    now,
  );
}

/**
 * The list writes of a resolution: abuse puts the event's identities on the watch list (when the
 * merchant's abuseReview rule is on); a legitimate return takes off what its dispositions put there
 * (orders never go to review, so no chargeback's entries are at stake).
 */
async function listWritesOf(
  review: Review,
  outcome: ReviewOutcome,
  now: number,
  room: number,
): Promise<Pick<FeedbackListWrites, 'history' | 'items'>> {
  const { merchantId } = review;
  const providerId = recordIdOf(review.eventKey);
  if (outcome === 'abuse') {
    const profile = await getRecord<Record<string, unknown>>(keys.merchantProfile(merchantId));
    if (!listRulesOf(profile?.listRules).abuseReview) return { history: new HistoryChanges(), items: [] };
    const target = reviewEntries(
      { ...review, providerId, identities: parseIdentityIds(review.identities) },
      now,
    );
    const [writes] = await feedbackListWrites(merchantId, [{ listed: [], target, mayAdd: true }], now, room);
    return writes!;
  }
  if (review.eventType !== 'return') return { history: new HistoryChanges(), items: [] };
  const dispositions = await getRecord<StoredDispositions>(keys.returnDispositions(merchantId, providerId));
  if (!dispositions?.listed?.length) return { history: new HistoryChanges(), items: [] };
  const [writes] = await feedbackListWrites(
    merchantId,
    [{ listed: dispositions.listed, target: [], mayAdd: false }],
    now,
    room,
  );
  return { history: writes!.history, items: [...writes!.items, dispositionsListedUpdate(dispositions, [])] };
}
