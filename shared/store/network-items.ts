import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { IdentityRef } from '../identity/identities.ts';
import { identityId, parseIdentityId } from '../identity/identity-ids.ts';
import {
  isEmptyLedger,
  NETWORK_RETENTION_DAYS,
  type NetworkLedger,
  type OwnSummary,
  ownSummaryOf,
  type ReputationItem,
  reputationOf,
  sameLedger,
} from '../network/reputation.ts';
import type { NetworkAbuseKind } from '../scoring/network-reputation.ts';
import { keyString } from './batch-get.ts';
import { documentClient, tableName } from './client.ts';
import { keys, networkGsi1, networkKeys, type TableKey } from './keys.ts';
import { GSI1, TTL_ATTRIBUTE } from './table-definition.ts';
import { ConditionFailedError, type TransactItems, transactWrite } from './transact.ts';

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
const SEEN_AT_ATTRIBUTE = 'networkSeenAt';

const DAY_S = 86_400;
const expiresAtFor = (now: number) => Math.floor(now / 1000) + NETWORK_RETENTION_DAYS * DAY_S;

export const ownSummaryFrom = (identityItem: Record<string, unknown> | undefined): OwnSummary | undefined =>
  identityItem?.[OWN_SUMMARY_ATTRIBUTE] as OwnSummary | undefined;

export function reputationFromItem(item: Record<string, unknown> | undefined): ReputationItem | undefined {
  if (!item) return undefined;
  return {
    merchants: Number(item.merchants ?? 0),
    ...(typeof item.firstSeenAt === 'number' ? { firstSeenAt: item.firstSeenAt } : {}),
    abuse: (item.abuse ?? {}) as ReputationItem['abuse'],
    seen: (item.seen ?? {}) as ReputationItem['seen'],
  };
}

const ledgerFromItem = (item: Record<string, unknown> | undefined): NetworkLedger => ({
  ...(typeof item?.seenAt === 'number' ? { seenAt: item.seenAt } : {}),
  causes: (item?.causes ?? {}) as NetworkLedger['causes'],
});

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

// ---- Contributions: the worker's writes ---------------------------------------------------------

export interface Contribution {
  networkKey: string;
  merchantId: string;
  /** The merchant's own identity behind the network key: its summary is kept on it. */
  identity: IdentityRef;
  change: (ledger: NetworkLedger) => NetworkLedger;
}

const MAX_ATTEMPTS = 8;

/**
 * Applies one merchant's change to its ledger of one network identity, and rebuilds the identity's
 * reputation from its ledgers, in one transaction: the reputation conditional on the version read,
 * the ledger too, and the merchant's own summary on its identity item. A change that leaves the
 * ledger as it is (a retried or repeated contribution) writes nothing. Returns whether it wrote.
 */
export async function applyContribution(contribution: Contribution, now: number): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const { reputation, ledgers } = await readNetworkPartition(contribution.networkKey);
    const mine = ledgers.get(contribution.merchantId);
    const before = ledgerFromItem(mine);
    const after = contribution.change(before);
    if (sameLedger(before, after)) return false;
    const others = [...ledgers.entries()]
      .filter(([merchantId]) => merchantId !== contribution.merchantId)
      .map(([, item]) => ledgerFromItem(item));
    const rebuilt = reputationOf(isEmptyLedger(after) ? others : [...others, after], now);
    try {
      await transactWrite(contributionWrites(contribution, reputation, mine, after, rebuilt, now));
      return true;
    } catch (error) {
      if (!(error instanceof ConditionFailedError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

/** The identity's reputation and every merchant's ledger, in one strongly consistent Query. */
async function readNetworkPartition(networkKey: string) {
  const pk = networkKeys.reputation(networkKey).PK;
  let reputation: Record<string, unknown> | undefined;
  const ledgers = new Map<string, Record<string, unknown>>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.SK === 'REPUTATION') reputation = item;
      else if (typeof item.merchantId === 'string') ledgers.set(item.merchantId, item);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { reputation, ledgers };
}

function contributionWrites(
  { networkKey, merchantId, identity }: Contribution,
  reputation: Record<string, unknown> | undefined,
  mine: Record<string, unknown> | undefined,
  after: NetworkLedger,
  rebuilt: ReputationItem,
  now: number,
): TransactItems {
  const versionCondition = (item: Record<string, unknown> | undefined) =>
    item
      ? {
          ConditionExpression: '#v = :v',
          ExpressionAttributeNames: { '#v': 'version' },
          ExpressionAttributeValues: { ':v': item.version },
        }
      : { ConditionExpression: 'attribute_not_exists(PK)' };
  const repKey = networkKeys.reputation(networkKey);
  const ledgerKey = networkKeys.ledger(networkKey, merchantId);
  const empty = isEmptyLedger(after);
  const ownKey = keys.identity(merchantId, identity.kind, identity.digest);
  return [
    rebuilt.merchants === 0 && Object.keys(rebuilt.abuse).length === 0
      ? { Delete: { TableName: tableName, Key: repKey, ...versionCondition(reputation) } }
      : {
          Put: {
            TableName: tableName,
            Item: {
              ...repKey,
              entity: 'networkReputation',
              kind: identity.kind,
              ...rebuilt,
              version: Number(reputation?.version ?? 0) + 1,
              [TTL_ATTRIBUTE]: expiresAtFor(now),
            },
            ...versionCondition(reputation),
          },
        },
    empty
      ? { Delete: { TableName: tableName, Key: ledgerKey, ...versionCondition(mine) } }
      : {
          Put: {
            TableName: tableName,
            Item: {
              ...ledgerKey,
              ...networkGsi1.ledgerByMerchant(merchantId, networkKey),
              entity: 'networkLedger',
              merchantId,
              networkKey,
              // The merchant's own identity, so a withdrawal can clear its summary there.
              identity: identityId(identity),
              ...after,
              version: Number(mine?.version ?? 0) + 1,
              [TTL_ATTRIBUTE]: expiresAtFor(now),
            },
            ...versionCondition(mine),
          },
        },
    {
      Update: {
        TableName: tableName,
        Key: ownKey,
        ...(empty
          ? { UpdateExpression: 'REMOVE #own', ExpressionAttributeNames: { '#own': OWN_SUMMARY_ATTRIBUTE } }
          : {
              UpdateExpression: 'SET #own = :own',
              ExpressionAttributeNames: { '#own': OWN_SUMMARY_ATTRIBUTE },
              ExpressionAttributeValues: { ':own': ownSummaryOf(after) },
            }),
      },
    },
  ];
}

/** One page of a merchant's ledger entries (their network keys and identity kinds), all shards. */
export async function merchantLedgerEntries(
  merchantId: string,
  limit: number,
): Promise<{ networkKey: string; identity: IdentityRef }[]> {
  const found: { networkKey: string; identity: IdentityRef }[] = [];
  for (const partition of networkGsi1.ledgerPartitions(merchantId)) {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: GSI1.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
        ExpressionAttributeValues: { ':pk': partition },
        Limit: limit - found.length,
      }),
    );
    for (const item of page.Items ?? [])
      found.push({ networkKey: String(item.networkKey), identity: parseIdentityId(String(item.identity)) });
    if (found.length >= limit) break;
  }
  return found;
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
      },
    },
  };
}

/** The attributes that queue a member's new identity item for its first sighting. */
export function sightingQueueAttributes(merchantId: string, ref: IdentityRef, at: number) {
  return {
    ...networkGsi1.queued(`${merchantId}#${ref.kind}#${ref.digest}`, new Date(at).toISOString()),
    [NETWORK_QUEUED_ATTRIBUTE]: merchantId,
    [SEEN_AT_ATTRIBUTE]: at,
  };
}

export type QueuedNetworkItem =
  | { type: 'work'; work: NetworkWork }
  | { type: 'sighting'; merchantId: string; ref: IdentityRef; seenAt: number; key: TableKey };

/** What a queued item asks of the worker (a stream record's new image, or a queue page's item). */
export function queuedNetworkItem(item: Record<string, unknown>): QueuedNetworkItem | undefined {
  const merchantId = item[NETWORK_QUEUED_ATTRIBUTE];
  if (typeof merchantId !== 'string') return undefined;
  if (item.entity === 'networkWork') return { type: 'work', work: item as unknown as NetworkWork };
  if (item.SK === 'COUNTERS' && typeof item[SEEN_AT_ATTRIBUTE] === 'number') {
    const digest = String(item.PK).split('#').at(-1) ?? '';
    return {
      type: 'sighting',
      merchantId,
      ref: { kind: item.kind as IdentityRef['kind'], digest },
      seenAt: item[SEEN_AT_ATTRIBUTE],
      key: { PK: String(item.PK), SK: String(item.SK) },
    };
  }
  return undefined;
}

/** Queued items, oldest first per shard, optionally one merchant's only (tests, local mode). */
export async function queuedNetworkItems(
  limit: number,
  merchantId?: string,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (const partition of networkGsi1.queuePartitions()) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: GSI1.name,
          KeyConditionExpression: '#pk = :pk',
          ...(merchantId ? { FilterExpression: '#q = :m' } : {}),
          ExpressionAttributeNames: {
            '#pk': GSI1.partitionKey,
            ...(merchantId ? { '#q': NETWORK_QUEUED_ATTRIBUTE } : {}),
          },
          ExpressionAttributeValues: { ':pk': partition, ...(merchantId ? { ':m': merchantId } : {}) },
          ExclusiveStartKey: startKey,
        }),
      );
      found.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey && found.length < limit);
    if (found.length >= limit) break;
  }
  return found.slice(0, limit);
}

/**
 * Takes a processed item off the queue, unless it was queued again meanwhile (a newer state of the
 * same cause): then it stays for the next pass.
 */
export async function dequeueNetworkItem(queued: QueuedNetworkItem): Promise<void> {
  const key =
    queued.type === 'work' ? networkKeys.work(queued.work.merchantId, queued.work.cause) : queued.key;
  const condition =
    queued.type === 'work'
      ? { ConditionExpression: 'queuedAt = :t', ExpressionAttributeValues: { ':t': queued.work.queuedAt } }
      : { ConditionExpression: '#seen = :t', ExpressionAttributeValues: { ':t': queued.seenAt } };
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: `REMOVE #pk, #sk, #q${queued.type === 'sighting' ? ', #seen' : ''}`,
        ExpressionAttributeNames: {
          '#pk': GSI1.partitionKey,
          '#sk': GSI1.sortKey,
          '#q': NETWORK_QUEUED_ATTRIBUTE,
          ...(queued.type === 'sighting' ? { '#seen': SEEN_AT_ATTRIBUTE } : {}),
        },
        ...condition,
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}
