import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Environment, KEY_PREFIX } from '../config.ts';
import type { KeyScope } from '../contract/endpoints.ts';
import { newKeyId, newMerchantId, randomBase62 } from '../ids.ts';
import type { ListRules } from '../schemas/lists.ts';
import { type AuditActor, auditPut } from './audit.ts';
import { sha256Hex } from './canonical.ts';
import { documentClient, tableName } from './client.ts';
import { apiKeyHashOf, gsi1, keys, learningGsi1, type TableKey } from './keys.ts';
import { queryAll } from './query-all.ts';
import { GSI1, TTL_ATTRIBUTE } from './table-definition.ts';
import {
  type TransactItem,
  type TransactItems,
  transactWrite,
  transactWriteIfFirstHolds,
} from './transact.ts';

/** Merchants and their API keys. Keys are stored only as SHA-256 digests; the clear key is shown once. */
type MerchantStatus = 'active' | 'suspended';

export interface Merchant {
  merchantId: string;
  name: string;
  status: MerchantStatus;
  accountUpdatesEnabled: boolean;
  /** Whether nightly training promotes a new model version by itself when the promotion rule holds. */
  autoPromoteModels: boolean;
  /** Requests per second and burst; undefined means the environment's default. */
  rateLimit?: { perSecond: number; burst: number };
  /** The feedback rules' switches as saved (shared/lists/feedback-rules.ts fills in the defaults). */
  listRules?: Partial<ListRules>;
  /** Membership of the opt-in network (shared/network/): absent means never joined (off). */
  network?: NetworkMembership;
  /** Whether `review.resolved` webhooks carry the reviewer's note (free text): off unless opted in. */
  webhookReviewNotes: boolean;
  createdAt: string;
}

/** On: the merchant's feedback contributes to the network and its decisions read it; changedAt: ISO time. */
export interface NetworkMembership {
  enabled: boolean;
  changedAt: string;
}

export interface ApiKeyRecord {
  keyId: string;
  /** SHA-256 of the key (hex), the only form in which the key is stored. */
  keyHash: string;
  merchantId: string;
  environment: Environment;
  /** What the key may call: the event endpoints or the management API (console). */
  scope: KeyScope;
  /** Who holds it, for console keys (`ana@acme.example`): the audit log names it. */
  name?: string;
  /** Endpoint names this key may call; undefined means every endpoint of its scope. */
  endpoints?: string[];
  status: 'active' | 'revoked';
  last4: string;
  createdAt: string;
  /** When the key stops working (ISO time); undefined: it never expires. */
  expiresAt?: string;
}

export interface IssuedKey {
  keyId: string;
  apiKey: string;
}

const API_KEY_RANDOM_LENGTH = 40;

export function hashApiKey(apiKey: string): string {
  return sha256Hex(apiKey);
}

/**
 * Who makes a key or a merchant when the caller names nobody: local tooling (`npm start`, benches,
 * the eval). The admin CLI, the only way to do it in AWS, names its operator.
 */
const LOCAL_TOOLING: AuditActor = { keyId: 'local_tooling', keyName: 'local tooling' };

export async function createMerchant(input: {
  name: string;
  accountUpdatesEnabled: boolean;
  environment: Environment;
  by?: AuditActor;
}): Promise<Merchant & IssuedKey> {
  const merchant: Merchant = {
    merchantId: newMerchantId(),
    name: input.name,
    status: 'active',
    accountUpdatesEnabled: input.accountUpdatesEnabled,
    autoPromoteModels: false,
    webhookReviewNotes: false,
    createdAt: new Date().toISOString(),
  };
  const {
    item: keyItem,
    issued,
    record,
  } = newKeyItem({
    merchantId: merchant.merchantId,
    environment: input.environment,
    scope: 'events',
  });
  await documentClient.send(
    new TransactWriteCommand({
      TransactItems: [
        keyCreatedAudit(record, input.by),
        {
          Put: {
            TableName: tableName,
            Item: {
              ...keys.merchantProfile(merchant.merchantId),
              ...learningGsi1.merchants(merchant.createdAt, merchant.merchantId),
              entity: 'merchant',
              ...merchant,
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        { Put: { TableName: tableName, Item: keyItem, ConditionExpression: 'attribute_not_exists(PK)' } },
      ],
    }),
  );
  return { ...merchant, ...issued };
}

export async function getMerchant(merchantId: string): Promise<Merchant | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.merchantProfile(merchantId), ConsistentRead: true }),
  );
  return Item ? toMerchant(Item) : undefined;
}

/** Every merchant's id, oldest first (merchants created before the listing existed are not in it). */
export async function listMerchantIds(): Promise<string[]> {
  const ids: string[] = [];
  await queryAll(
    {
      IndexName: GSI1.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
      ExpressionAttributeValues: { ':pk': learningGsi1.merchants('', '')[GSI1.partitionKey] },
    },
    (item) => {
      ids.push(String(item.merchantId));
      return true;
    },
  );
  return ids;
}

export async function updateMerchant(
  merchantId: string,
  // Not `status`: a suspension is audited (setMerchantStatus).
  changes: Partial<
    Pick<Merchant, 'accountUpdatesEnabled' | 'autoPromoteModels' | 'rateLimit' | 'webhookReviewNotes'>
  >,
): Promise<Merchant | undefined> {
  const entries = Object.entries(changes).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return getMerchant(merchantId);
  try {
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.merchantProfile(merchantId),
        UpdateExpression: `SET ${entries.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([k], i) => [`#f${i}`, k])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, v], i) => [`:v${i}`, v])),
        ConditionExpression: 'attribute_exists(PK)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? toMerchant(Attributes) : undefined;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

/**
 * Saves the merchant's feedback-rule switches with `alsoWrite` (the audit entry) in one transaction.
 * Returns false when there is no such merchant (nothing written).
 */
export const saveListRules = (merchantId: string, listRules: ListRules, alsoWrite: TransactItems) =>
  saveProfileAttribute(merchantId, 'listRules', listRules, alsoWrite);

/**
 * Sets the merchant's network membership with `alsoWrite` (its audit entry, a withdrawal's work
 * item) in one transaction. Returns false when there is no such merchant (nothing written).
 */
export const saveNetworkMembership = (
  merchantId: string,
  network: NetworkMembership,
  alsoWrite: TransactItems,
) => saveProfileAttribute(merchantId, 'network', network, alsoWrite);

/** One attribute of an existing merchant's profile, set with `alsoWrite` in one transaction. */
function saveProfileAttribute(
  merchantId: string,
  attribute: 'listRules' | 'network',
  value: unknown,
  alsoWrite: TransactItems,
): Promise<boolean> {
  return transactWriteIfFirstHolds([
    {
      Update: {
        TableName: tableName,
        Key: keys.merchantProfile(merchantId),
        UpdateExpression: 'SET #attribute = :value',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#attribute': attribute },
        ExpressionAttributeValues: { ':value': value },
      },
    },
    ...alsoWrite,
  ]);
}

export interface NewKey {
  merchantId: string;
  environment: Environment;
  /** `events` unless said otherwise. */
  scope?: KeyScope;
  name?: string;
  endpoints?: string[];
  /** When the key stops working (ISO time); never when absent. */
  expiresAt?: string;
  /** Who makes it, for the audit log. */
  by?: AuditActor;
}

/** An expired key's item stays this long after its expiry (auditors may look it up), then TTL removes it. */
const EXPIRED_KEY_KEPT_SECONDS = 90 * 86_400;

/** Creates a key with its audit entry, in one transaction. undefined: no such merchant. */
export async function createApiKey(input: NewKey): Promise<IssuedKey | undefined> {
  if (!(await getMerchant(input.merchantId))) return undefined;
  const { item, issued, record } = newKeyItem(input);
  await transactWrite([
    { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
    keyCreatedAudit(record, input.by),
  ]);
  return issued;
}

function keyCreatedAudit(record: ApiKeyRecord, by: AuditActor = LOCAL_TOOLING): TransactItem {
  const holder = record.name ? ` held by ${record.name}` : '';
  const expiry = record.expiresAt ? `, expires ${record.expiresAt}` : '';
  return auditPut(record.merchantId, {
    at: record.createdAt,
    action: 'apiKey.created',
    ...by,
    subject: record.keyId,
    detail: `${record.scope} key …${record.last4}${holder}${expiry}`,
  });
}

/** Marks a key revoked, with its audit entry, in one transaction. false: no such key id. */
export async function revokeApiKey(keyId: string, by: AuditActor, now = Date.now()): Promise<boolean> {
  const { Items } = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: GSI1.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
      ExpressionAttributeValues: { ':pk': gsi1.apiKeyById(keyId)[GSI1.partitionKey] },
    }),
  );
  const item = Items?.[0];
  if (!item) return false;
  const at = new Date(now).toISOString();
  await transactWrite([
    {
      Update: {
        TableName: tableName,
        Key: { PK: item.PK, SK: item.SK },
        UpdateExpression: 'SET #status = :revoked, revokedAt = :now',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':revoked': 'revoked', ':now': at },
      },
    },
    auditPut(String(item.merchantId), {
      at,
      action: 'apiKey.revoked',
      ...by,
      subject: keyId,
      detail: `${item.scope === 'console' ? 'console' : 'events'} key …${String(item.last4)}${typeof item.name === 'string' ? ` held by ${item.name}` : ''}`,
    }),
  ]);
  return true;
}

/**
 * Suspends a merchant (every key answers 403) or lifts it, with its audit entry, in one transaction.
 * false: no such merchant.
 */
export function setMerchantStatus(
  merchantId: string,
  status: MerchantStatus,
  by: AuditActor,
  now = Date.now(),
): Promise<boolean> {
  return transactWriteIfFirstHolds([
    {
      Update: {
        TableName: tableName,
        Key: keys.merchantProfile(merchantId),
        UpdateExpression: 'SET #status = :status',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':status': status },
      },
    },
    auditPut(merchantId, {
      at: new Date(now).toISOString(),
      action: status === 'suspended' ? 'merchant.suspended' : 'merchant.unsuspended',
      ...by,
      subject: merchantId,
      detail: status === 'suspended' ? 'every key of the merchant answers 403' : 'its keys work again',
    }),
  ]);
}

export async function findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
  // Strongly consistent: an eventually consistent read just after a revocation may still see the
  // key active, and the key cache would then trust that for its whole lifetime.
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.apiKey(keyHash), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  return {
    keyId: Item.keyId,
    // Keys issued before the attribute existed carry their hash only in their key.
    keyHash: typeof Item.keyHash === 'string' ? Item.keyHash : apiKeyHashOf(Item as TableKey),
    merchantId: Item.merchantId,
    environment: Item.environment,
    // Keys issued before scopes existed call the event endpoints.
    scope: Item.scope === 'console' ? 'console' : 'events',
    ...(typeof Item.name === 'string' ? { name: Item.name } : {}),
    endpoints: Item.endpoints,
    status: Item.status,
    last4: Item.last4,
    createdAt: Item.createdAt,
    ...(typeof Item.expiry === 'string' ? { expiresAt: Item.expiry } : {}),
  };
}

function newKeyItem({ merchantId, environment, scope = 'events', name, endpoints, expiresAt }: NewKey) {
  const apiKey = `${KEY_PREFIX[environment]}${randomBase62(API_KEY_RANDOM_LENGTH)}`;
  const keyId = newKeyId();
  const keyHash = hashApiKey(apiKey);
  const record: ApiKeyRecord = {
    keyId,
    keyHash,
    merchantId,
    environment,
    scope,
    ...(name !== undefined ? { name } : {}),
    ...(endpoints ? { endpoints } : {}),
    status: 'active',
    last4: apiKey.slice(-4),
    createdAt: new Date().toISOString(),
    ...(expiresAt ? { expiresAt } : {}),
  };
  // `expiresAt` is the table's TTL attribute (epoch seconds): the key's own expiry is `expiry`.
  const { expiresAt: _expiry, ...stored } = record;
  const expiry = expiresAt
    ? {
        expiry: expiresAt,
        [TTL_ATTRIBUTE]: Math.floor(Date.parse(expiresAt) / 1000) + EXPIRED_KEY_KEPT_SECONDS,
      }
    : {};
  return {
    item: { ...keys.apiKey(keyHash), ...gsi1.apiKeyById(keyId), entity: 'apiKey', ...stored, ...expiry },
    issued: { keyId, apiKey },
    record,
  };
}

function toMerchant(item: Record<string, unknown>): Merchant {
  return {
    merchantId: item.merchantId as string,
    name: item.name as string,
    status: item.status as MerchantStatus,
    accountUpdatesEnabled: item.accountUpdatesEnabled === true,
    autoPromoteModels: item.autoPromoteModels === true,
    webhookReviewNotes: item.webhookReviewNotes === true,
    ...(item.rateLimit ? { rateLimit: item.rateLimit as Merchant['rateLimit'] } : {}),
    ...(item.listRules ? { listRules: item.listRules as Merchant['listRules'] } : {}),
    ...(item.network ? { network: item.network as NetworkMembership } : {}),
    createdAt: item.createdAt as string,
  };
}
