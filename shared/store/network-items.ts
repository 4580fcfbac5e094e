import type { IdentityRef } from '../identity/identities.ts';
import type { OwnSummary, ReputationItem } from '../network/reputation.ts';
import { retainUntil } from '../retention.ts';
import type { NetworkAbuseKind } from '../scoring/network-reputation.ts';
import { keyString } from './batch-get.ts';
import { tableName } from './client.ts';
import { networkGsi1, networkKeys, type TableKey } from './keys.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';
import type { TransactItems } from './transact.ts';

/**
 * The network's items in the single table (keys in keys.ts, data in shared/network/reputation.ts):
 * reputation and ledgers per network identity, the merchant's own summary on its identity item, the
 * worker's queue (a member's feedback as one work item per cause; a member's new identity marked on
 * its own item), and the per-instance cache of reputation items the decision path reads through.
 */

/** Attribute on a member's own identity item: its own contribution, taken out of what it reads. */
export const OWN_SUMMARY_ATTRIBUTE = 'networkOwn';
/** Marker of an item waiting for the network worker (its value: the merchant's id). */
export const NETWORK_QUEUED_ATTRIBUTE = 'networkQueued';
/** On a queued identity item: the event time of the merchant's first sighting. */
export const SEEN_AT_ATTRIBUTE = 'networkSeenAt';
/**
 * On a member's identity item: its network key, computed at event time from the normalised value
 * (the only moment the service holds it). The worker contributes feedback under it; an identity
 * without one (seen before the merchant joined, or since it left) is sighted again by its next event.
 */
export const NETWORK_KEY_ATTRIBUTE = 'networkKey';

export const networkKeyFrom = (identityItem: Record<string, unknown> | undefined): string | undefined =>
  typeof identityItem?.[NETWORK_KEY_ATTRIBUTE] === 'string' ? identityItem[NETWORK_KEY_ATTRIBUTE] : undefined;

export const ownSummaryFrom = (identityItem: Record<string, unknown> | undefined): OwnSummary | undefined =>
  identityItem?.[OWN_SUMMARY_ATTRIBUTE] as OwnSummary | undefined;

function reputationFromItem(item: Record<string, unknown> | undefined): ReputationItem | undefined {
  if (!item) return undefined;
  return {
    merchants: Number(item.merchants ?? 0),
    ...(typeof item.firstSeenAt === 'number' ? { firstSeenAt: item.firstSeenAt } : {}),
    // Items of the per-cause format before the privacy floor carry no `at` lists: they count nothing.
    abuse: (item.abuse ?? {}) as ReputationItem['abuse'],
    abusedAt: Array.isArray(item.abusedAt) ? (item.abusedAt as number[]) : [],
    seen: (item.seen ?? {}) as ReputationItem['seen'],
  };
}

// ---- The decision path's read, through a per-instance cache ------------------------------------

/**
 * A hot identity (a parcel locker's device, an office card) is read at most once per instance per
 * NETWORK_CACHE_MS; absence is cached too, most identities having no reputation. At most
 * NETWORK_CACHE_ENTRIES items are kept (the oldest go first): about 1 KB each.
 */
const DEFAULT_CACHE_MS = 15_000;
const NETWORK_CACHE_ENTRIES = 10_000;
const cacheMs = () => Number(process.env.NETWORK_CACHE_MS ?? DEFAULT_CACHE_MS);
const cache = new Map<string, { item: Record<string, unknown> | undefined; expiresAt: number }>();

/** The reputation keys the batch read must still fetch (those not cached and fresh). */
export function uncachedReputationKeys(networkKeyList: readonly string[], now: number): TableKey[] {
  return networkKeyList
    .filter((nk) => {
      const hit = cache.get(nk);
      return !hit || hit.expiresAt <= now;
    })
    .map((nk) => networkKeys.reputation(nk));
}

/** The reputation items of these keys: fresh from the batch read (and cached), or from the cache. */
export function reputationItemsFrom(
  networkKeyList: readonly string[],
  read: Map<string, Record<string, unknown>>,
  fetched: readonly TableKey[],
  now: number,
): (ReputationItem | undefined)[] {
  const ttl = cacheMs();
  for (const key of fetched) {
    const nk = key.PK.slice('NET#'.length);
    cache.delete(nk);
    if (ttl > 0) cache.set(nk, { item: read.get(keyString(key)), expiresAt: now + ttl });
  }
  while (cache.size > NETWORK_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  const fetchedKeys = new Set(fetched.map(keyString));
  return networkKeyList.map((nk) => {
    const key = networkKeys.reputation(nk);
    const item = fetchedKeys.has(keyString(key)) ? read.get(keyString(key)) : cache.get(nk)?.item;
    return reputationFromItem(item);
  });
}

// ---- The worker's queue -------------------------------------------------------------------------

/** What one member's feedback record now contributes (undefined `abuse`: nothing, e.g. a WON dispute). */
export interface NetworkWork {
  merchantId: string;
  cause: string;
  abuse?: { kind: NetworkAbuseKind; at: number };
  /** The record's identities (`kind#digest`): the shared kinds among them are contributed. */
  identities: readonly string[];
  /** A leaving member's withdrawal instead of a cause. */
  withdraw?: boolean;
  queuedAt: number;
}

export const WITHDRAWAL_CAUSE = 'withdrawal';

/** The work item of a member's feedback, written in the feedback's own transaction. */
export function networkWorkPut(work: NetworkWork): TransactItems[number] {
  const at = new Date(work.queuedAt).toISOString();
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...networkKeys.work(work.merchantId, work.cause),
        ...networkGsi1.queued(`${work.merchantId}#${work.cause}`, at),
        entity: 'networkWork',
        [NETWORK_QUEUED_ATTRIBUTE]: work.merchantId,
        ...work,
        [TTL_ATTRIBUTE]: retainUntil('network', work.queuedAt),
      },
    },
  };
}

/** The attributes that queue a member's identity item for its first sighting, under its network key. */
export function sightingQueueAttributes(
  merchantId: string,
  ref: IdentityRef,
  at: number,
  networkKey: string,
) {
  return {
    ...networkGsi1.queued(`${merchantId}#${ref.kind}#${ref.digest}`, new Date(at).toISOString()),
    [NETWORK_QUEUED_ATTRIBUTE]: merchantId,
    [SEEN_AT_ATTRIBUTE]: at,
    [NETWORK_KEY_ATTRIBUTE]: networkKey,
  };
}

export type QueuedNetworkItem =
  | { type: 'work'; work: NetworkWork }
  | {
      type: 'sighting';
      merchantId: string;
      ref: IdentityRef;
      networkKey: string;
      seenAt: number;
      key: TableKey;
    };

/** What a queued item asks of the worker (a stream record's new image, or a queue page's item). */
export function queuedNetworkItem(item: Record<string, unknown>): QueuedNetworkItem | undefined {
  const merchantId = item[NETWORK_QUEUED_ATTRIBUTE];
  if (typeof merchantId !== 'string') return undefined;
  if (item.entity === 'networkWork') return { type: 'work', work: item as unknown as NetworkWork };
  const networkKey = networkKeyFrom(item);
  if (item.SK === 'COUNTERS' && typeof item[SEEN_AT_ATTRIBUTE] === 'number' && networkKey) {
    const digest = String(item.PK).split('#').at(-1) ?? '';
    return {
      type: 'sighting',
      merchantId,
      ref: { kind: item.kind as IdentityRef['kind'], digest },
      networkKey,
      seenAt: item[SEEN_AT_ATTRIBUTE],
      key: { PK: String(item.PK), SK: String(item.SK) },
    };
  }
  return undefined;
}
