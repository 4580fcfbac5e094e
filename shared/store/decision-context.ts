import { type IdentityRef, uniqueIdentities } from '../identity/identities.ts';
import type { LiveModels } from '../scoring/decide.ts';
import type { EventType } from '../scoring/workflow.ts';
import { loadWorkflow, type RunnableWorkflow } from '../scoring/workflow-engine.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { type IdentitySnapshot, identityKey, snapshotsFrom } from './identity-history.ts';
import { type TableKey, webhookKeys } from './keys.ts';
import { liveModelsFromItem, modelPointersKey } from './model-versions.ts';
import { workflowFromItem, workflowKey } from './workflows.ts';

/**
 * Everything a scored request reads, in one BatchGetItem: the merchant's workflow for the event
 * type, the history of every identity the event names, and the use case's own records (the
 * idempotency record, the referenced order, ...) and the merchant's webhook subscriptions. Identities known only from those records (a
 * return's original order) are read in a second BatchGetItem, never more.
 */
export interface DecisionContext {
  workflow: RunnableWorkflow;
  /** The merchant's active model for the event type (or the default) and any version in shadow. */
  models: LiveModels;
  snapshots: IdentitySnapshot[];
  /** Raw items by key, so the write can prune stale buckets and use cases can read their records. */
  items: Map<string, Record<string, unknown>>;
  item: <T = Record<string, unknown>>(key: TableKey) => T | undefined;
  /** Snapshots of the given identities (a role's subset of `snapshots`). */
  snapshotsOf: (refs: readonly IdentityRef[]) => IdentitySnapshot[];
}

export async function loadDecisionContext(input: {
  merchantId: string;
  eventType: EventType;
  identities: readonly IdentityRef[];
  records: readonly TableKey[];
  /** The event's own time: windows, ages and first/last seen are read as of it. */
  now: number;
  /**
   * false for events that must send no webhook (imported history): the merchant's subscriptions are
   * then not read, and the write finds none (store/webhook-notices.ts).
   */
  notify?: boolean;
  /** Identities named by the records just read; an empty answer saves the second read. */
  identitiesFromRecords?: (item: <T>(key: TableKey) => T | undefined) => readonly IdentityRef[];
}): Promise<DecisionContext> {
  const { merchantId, eventType, records, now } = input;
  const wfKey = workflowKey(merchantId, eventType);
  const pointersKey = modelPointersKey(merchantId, eventType);
  const items = await batchGetItems([
    wfKey,
    pointersKey,
    // What the merchant's webhooks subscribe to: in this same read, never a round trip of its own.
    ...(input.notify === false ? [] : [webhookKeys.subscriptions(merchantId)]),
    ...records,
    ...input.identities.map((ref) => identityKey(merchantId, ref)),
  ]);
  const item = <T>(key: TableKey) => items.get(keyString(key)) as T | undefined;
  const linked = input.identitiesFromRecords?.(item) ?? [];
  const identities = uniqueIdentities([...input.identities, ...linked]);
  const read = new Set(input.identities.map((ref) => keyString(identityKey(merchantId, ref))));
  const unread = identities.map((ref) => identityKey(merchantId, ref)).filter((k) => !read.has(keyString(k)));
  if (unread.length > 0) for (const [k, v] of await batchGetItems(unread)) items.set(k, v);
  const snapshots = snapshotsFrom(merchantId, identities, items, now);
  return {
    workflow: await loadWorkflow(workflowFromItem(items.get(keyString(wfKey)), eventType)),
    models: liveModelsFromItem(items.get(keyString(pointersKey)), eventType),
    snapshots,
    items,
    item,
    snapshotsOf: (refs) =>
      snapshots.filter((s) => refs.some((r) => r.kind === s.ref.kind && r.digest === s.ref.digest)),
  };
}
