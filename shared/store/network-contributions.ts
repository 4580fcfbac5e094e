import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { IdentityRef } from '../identity/identities.ts';
import { identityId, parseIdentityId } from '../identity/identity-ids.ts';
import {
  isEmptyLedger,
  NETWORK_RETENTION_DAYS,
  type NetworkLedger,
  networkCausesPerDay,
  ownSummaryOf,
  type ReputationItem,
  reputationOf,
  sameLedger,
} from '../network/reputation.ts';
import { documentClient, tableName } from './client.ts';
import { utcDay } from './decision-settings.ts';
import { keys, networkGsi1, networkKeys } from './keys.ts';
import {
  NETWORK_KEY_ATTRIBUTE,
  NETWORK_QUEUED_ATTRIBUTE,
  OWN_SUMMARY_ATTRIBUTE,
  type QueuedNetworkItem,
  SEEN_AT_ATTRIBUTE,
} from './network-items.ts';
import { queryAll } from './query-all.ts';
import { GSI1, TTL_ATTRIBUTE } from './table-definition.ts';
import { ConditionFailedError, type TransactItems, transactWrite } from './transact.ts';

/**
 * The network worker's side of the network items (shared/store/network-items.ts holds what the
 * decision path and the feedback use cases write): contributions rebuilding an identity's
 * reputation from its ledgers, a member's ledger listing for withdrawal, and the queue's reads.
 * Apart so that no API function bundles the worker's queries.
 */
const DAY_S = 86_400;
const expiresAtFor = (now: number) => Math.floor(now / 1000) + NETWORK_RETENTION_DAYS * DAY_S;

const ledgerFromItem = (item: Record<string, unknown> | undefined): NetworkLedger => ({
  ...(typeof item?.seenAt === 'number' ? { seenAt: item.seenAt } : {}),
  ...(typeof item?.recordedAt === 'number' ? { recordedAt: item.recordedAt } : {}),
  causes: (item?.causes ?? {}) as NetworkLedger['causes'],
});

// ---- Contributions: the worker's writes ---------------------------------------------------------

export interface Contribution {
  networkKey: string;
  merchantId: string;
  /** The merchant's own identity behind the network key: its summary is kept on it. */
  identity: IdentityRef;
  change: (ledger: NetworkLedger) => NetworkLedger;
}

/** What applying a contribution did: `capped` when the merchant's causes for today ran out. */
export type ContributionOutcome = 'written' | 'unchanged' | 'capped';

const MAX_ATTEMPTS = 8;

/**
 * Applies one merchant's change to its ledger of one network identity, and rebuilds the identity's
 * reputation from its ledgers, in one transaction: the reputation conditional on the version read,
 * the ledger too, the merchant's own summary on its identity item, and (for new causes) the
 * merchant's count of causes today, conditional on room under the daily cap (networkCausesPerDay). A change that
 * leaves the ledger as it is (a retried or repeated contribution) writes nothing; new causes past
 * the day's cap write nothing either. `alsoWrite` joins the transaction (an operator's audit entry).
 */
export async function applyContribution(
  contribution: Contribution,
  now: number,
  alsoWrite: TransactItems = [],
): Promise<ContributionOutcome> {
  for (let attempt = 1; ; attempt++) {
    const { reputation, ledgers } = await readNetworkPartition(contribution.networkKey);
    const mine = ledgers.get(contribution.merchantId);
    const before = ledgerFromItem(mine);
    const after = contribution.change(before);
    if (sameLedger(before, after)) return 'unchanged';
    const newCauses = Object.keys(after.causes).filter((cause) => !(cause in before.causes)).length;
    if (
      newCauses > 0 &&
      (await causesToday(contribution.merchantId, now)) + newCauses > networkCausesPerDay()
    )
      return 'capped';
    const others = [...ledgers.entries()]
      .filter(([merchantId]) => merchantId !== contribution.merchantId)
      .map(([, item]) => ledgerFromItem(item));
    const rebuilt = reputationOf(isEmptyLedger(after) ? others : [...others, after], now);
    try {
      await transactWrite([
        ...contributionWrites(contribution, reputation, mine, after, rebuilt, now),
        ...(newCauses > 0 ? [dailyCausesWrite(contribution.merchantId, newCauses, now)] : []),
        ...alsoWrite,
      ]);
      return 'written';
    } catch (error) {
      if (!(error instanceof ConditionFailedError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

/** The merchant's causes accepted today (UTC), read strongly: the cap is checked against it. */
async function causesToday(merchantId: string, now: number): Promise<number> {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: networkKeys.dailyCauses(merchantId, utcDay(now)),
      ConsistentRead: true,
    }),
  );
  return Number(Item?.n ?? 0);
}

function dailyCausesWrite(merchantId: string, added: number, now: number): TransactItems[number] {
  return {
    Update: {
      TableName: tableName,
      Key: networkKeys.dailyCauses(merchantId, utcDay(now)),
      UpdateExpression: 'ADD #n :added SET #ttl = :ttl',
      ConditionExpression: 'attribute_not_exists(#n) OR #n <= :room',
      ExpressionAttributeNames: { '#n': 'n', '#ttl': TTL_ATTRIBUTE },
      ExpressionAttributeValues: {
        ':added': added,
        ':room': networkCausesPerDay() - added,
        ':ttl': Math.floor(now / 1000) + 2 * DAY_S,
      },
    },
  };
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
        // Emptied (the merchant left): its network key goes too, so a rejoin sights it afresh.
        ...(empty
          ? {
              UpdateExpression: 'REMOVE #own, #nk',
              ExpressionAttributeNames: { '#own': OWN_SUMMARY_ATTRIBUTE, '#nk': NETWORK_KEY_ATTRIBUTE },
            }
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

/** Queued items, oldest first per shard, optionally one merchant's only (tests, local mode). */
export async function queuedNetworkItems(
  limit: number,
  merchantId?: string,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  for (const partition of networkGsi1.queuePartitions()) {
    if (found.length >= limit) break;
    await queryAll(
      {
        IndexName: GSI1.name,
        KeyConditionExpression: '#pk = :pk',
        ...(merchantId ? { FilterExpression: '#q = :m' } : {}),
        ExpressionAttributeNames: {
          '#pk': GSI1.partitionKey,
          ...(merchantId ? { '#q': NETWORK_QUEUED_ATTRIBUTE } : {}),
        },
        ExpressionAttributeValues: { ':pk': partition, ...(merchantId ? { ':m': merchantId } : {}) },
      },
      (item) => found.push(item) < limit,
    );
  }
  return found;
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
