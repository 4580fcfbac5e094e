import type { EventType } from '../contract/endpoints.ts';
import { type IdentityRef, sameIdentity, uniqueIdentities } from '../identity/identities.ts';
import { reputationAsOf } from '../network/reputation.ts';
import type { DecisionPolicy, LiveModels } from '../scoring/decide.ts';
import type { IdentitySnapshot } from '../scoring/identity-snapshot.ts';
import { isNetworkKind, type NetworkReputation } from '../scoring/network-reputation.ts';
import { loadWorkflow, type RunnableWorkflow } from '../scoring/workflow-engine.ts';
import { batchGetItems, keyString } from '../store/batch-get.ts';
import { decisionPolicyFromItem, reviewCounterCount } from '../store/decision-settings.ts';
import { identityKey, snapshotsFrom } from '../store/identity-history.ts';
import { REVIEW_COUNTER_SHARDS, type TableKey, webhookKeys } from '../store/keys.ts';
import { liveModelsFromItem, modelPointersKey } from '../store/model-versions.ts';
import { ownSummaryFrom, reputationItemsFrom, uncachedReputationKeys } from '../store/network-items.ts';
import { subscriptionsFromItem } from '../store/webhooks.ts';
import { workflowFromItem, workflowKey } from '../store/workflows.ts';
import type { WebhookSubscription } from '../webhooks/events.ts';

/**
 * Everything a scored event reads, in one BatchGetItem: the merchant's workflow (with its decision
 * settings and guard) and model pointers for the event type, one shard of today's review counter
 * (event types that can review), its webhook subscriptions, the history of every identity the event
 * names and the event's own records (the record under its key, the referenced order, the
 * Idempotency-Key record). Identities known only from those records (a return's original order) are
 * read in a second BatchGetItem, never more. The workflow is compiled here, once per process and
 * condition.
 */
export interface DecisionContext {
  workflow: RunnableWorkflow;
  /** The merchant's active model for the event type (or the default) and any version in shadow. */
  models: LiveModels;
  /** The merchant's economics, review capacity left today and guard: each decision's thresholds. */
  policy: DecisionPolicy;
  /** The review-counter shard read: a REVIEW decision counts in it (store/decided-events.ts). */
  reviewCounter: TableKey | undefined;
  /** What the merchant's webhooks want (empty when the call is not to notify). */
  subscriptions: WebhookSubscription[];
  snapshots: IdentitySnapshot[];
  /** A network member's card, device and e-mail as other members know them; empty otherwise. */
  network: NetworkReputation[];
  /** Raw items by key, so the write can prune stale buckets and use cases can read their records. */
  items: Map<string, Record<string, unknown>>;
  item: <T = Record<string, unknown>>(key: TableKey) => T | undefined;
  /** Snapshots of the given identities (a role's subset of `snapshots`). */
  snapshotsOf: (refs: readonly IdentityRef[]) => IdentitySnapshot[];
}

export interface DecisionReads {
  merchantId: string;
  eventType: EventType;
  identities: readonly IdentityRef[];
  records: readonly TableKey[];
  /** The event's own time: windows, ages and first/last seen are read as of it. */
  at: number;
  /** false for events that send no webhook (imported history): the subscriptions are not read. */
  notify?: boolean | undefined;
  /** Today's review-counter shard for the event; absent for event types that never review (orders). */
  reviewCounter?: TableKey | undefined;
  /** Identities named by the records just read; an empty answer saves the second read. */
  identitiesFromRecords?: ((item: <T>(key: TableKey) => T | undefined) => readonly IdentityRef[]) | undefined;
  /** true: the merchant is a network member and the event type reads the network. */
  network?: boolean | undefined;
}

export async function loadDecisionContext(reads: DecisionReads): Promise<DecisionContext> {
  const { merchantId, eventType, records, at } = reads;
  const wfKey = workflowKey(merchantId, eventType);
  const pointersKey = modelPointersKey(merchantId, eventType);
  const subscriptionsKey = webhookKeys.subscriptions(merchantId);
  // A member's shared identities: their reputation items join this same read (those not cached).
  // Their network keys were computed with their digests, at event time (shared/digests/identity-digests.ts).
  const networked = reads.network
    ? reads.identities.filter((ref) => isNetworkKind(ref.kind) && ref.networkKey !== undefined)
    : [];
  const networkKeys = networked.map((ref) => ref.networkKey!);
  const readAt = Date.now();
  const reputationKeys = uncachedReputationKeys(networkKeys, readAt);
  const items = await batchGetItems([
    wfKey,
    pointersKey,
    // What the merchant's webhooks subscribe to: in this same read, never a round trip of its own.
    ...(reads.notify === false ? [] : [subscriptionsKey]),
    ...(reads.reviewCounter ? [reads.reviewCounter] : []),
    ...records,
    ...reads.identities.map((ref) => identityKey(merchantId, ref)),
    ...reputationKeys,
  ]);
  const item = <T>(key: TableKey) => items.get(keyString(key)) as T | undefined;
  const linked = reads.identitiesFromRecords?.(item) ?? [];
  const identities = uniqueIdentities([...reads.identities, ...linked]);
  const read = new Set(reads.identities.map((ref) => keyString(identityKey(merchantId, ref))));
  const unread = identities.map((ref) => identityKey(merchantId, ref)).filter((k) => !read.has(keyString(k)));
  if (unread.length > 0) for (const [k, v] of await batchGetItems(unread)) items.set(k, v);
  const snapshots = snapshotsFrom(merchantId, identities, items, at);
  const reputations = reputationItemsFrom(networkKeys, items, reputationKeys, readAt);
  const network = networked.map((ref, i) =>
    reputationAsOf(
      ref,
      reputations[i],
      ownSummaryFrom(items.get(keyString(identityKey(merchantId, ref)))),
      at,
    ),
  );
  const { settings, guard } = decisionPolicyFromItem(item(wfKey), eventType);
  // One shard scaled by the shard count: approximate by design (store/keys.ts says how far).
  const reviewsToday = reads.reviewCounter
    ? reviewCounterCount(item(reads.reviewCounter)) * REVIEW_COUNTER_SHARDS
    : Number.POSITIVE_INFINITY;
  return {
    workflow: await loadWorkflow(workflowFromItem(item(wfKey), eventType)),
    models: liveModelsFromItem(item(pointersKey), eventType),
    policy: {
      thresholds: { settings, guard, reviewCapacityLeft: reviewsToday < settings.reviewCapacityPerDay },
    },
    reviewCounter: reads.reviewCounter,
    subscriptions: subscriptionsFromItem(item(subscriptionsKey)),
    snapshots,
    network,
    items,
    item,
    snapshotsOf: (refs) => snapshots.filter((s) => refs.some((r) => sameIdentity(r, s.ref))),
  };
}
