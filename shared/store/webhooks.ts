import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomBase62 } from '../ids.ts';
import type { WebhookSettings } from '../schemas/webhooks.ts';
import type { WebhookSubscription } from '../webhooks/events.ts';
import { failingTooLong } from '../webhooks/schedule.ts';
import { openSecret, type SealedSecret, sealSecret } from '../webhooks/secret-box.ts';
import { newWebhookSecret } from '../webhooks/signing.ts';
import { documentClient, tableName } from './client.ts';
import { queryGsi1 } from './index-query.ts';
import { webhookGsi1, webhookKeys } from './keys.ts';
import { GSI1 } from './table-definition.ts';
import {
  ConditionFailedError,
  type TransactItem,
  transactWrite,
  transactWriteIfFirstHolds,
} from './transact.ts';

/**
 * A merchant's webhook endpoints. Each endpoint is one item holding its URL, filters and signing
 * secrets; what the enabled ones subscribe to is mirrored, in the same transaction, on the merchant's
 * one subscriptions item, which every scored request reads in its existing BatchGetItem (no extra
 * round trip). Secrets are stored sealed, never leave this module except to sign, and are shown
 * once when made.
 */
type WebhookStatus = 'enabled' | 'disabled';

/** A signing secret as stored: sealed (shared/webhooks/secret-box.ts), never in plain text. */
interface SigningSecret {
  sealed?: SealedSecret;
  /** Written before secrets were sealed: read until the endpoint's next rotation replaces it. */
  secret?: string;
  /** Set on the previous secret during a rotation: it keeps signing until then. */
  expiresAt?: number;
}

export interface WebhookEndpoint extends WebhookSettings {
  merchantId: string;
  webhookId: string;
  status: WebhookStatus;
  /** Why and when it was disabled (by a person, or by failing for 72 h). */
  disabled?: { reason: string; at: string };
  /** Start of the current run of failed attempts (no success since); cleared by a success. */
  failingSince?: number;
  createdAt: string;
  updatedAt: string;
}

/** Enabled endpoints per merchant: every one adds at most one delivery per event. */
const MAX_WEBHOOK_ENDPOINTS = 10;
/** How long the previous secret keeps signing after a rotation. */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;
const SUBSCRIPTION_PREFIX = 'sub_';

const newWebhookId = () => `wh_${randomBase62(16)}`;

/** The subscriptions of a merchant's enabled endpoints, from its subscriptions item (absent: none). */
export function subscriptionsFromItem(item: Record<string, unknown> | undefined): WebhookSubscription[] {
  return Object.entries(item ?? {})
    .filter(([name]) => name.startsWith(SUBSCRIPTION_PREFIX))
    .map(([, value]) => value as WebhookSubscription);
}

export async function readSubscriptions(merchantId: string): Promise<WebhookSubscription[]> {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: webhookKeys.subscriptions(merchantId),
      ConsistentRead: true,
    }),
  );
  return subscriptionsFromItem(Item);
}

/** Creates an enabled endpoint; the secret is returned here and never again. */
export async function createWebhookEndpoint(
  merchantId: string,
  settings: WebhookSettings,
  now: number,
): Promise<{ endpoint: WebhookEndpoint; secret: string } | { refused: string }> {
  if ((await readSubscriptions(merchantId)).length >= MAX_WEBHOOK_ENDPOINTS) {
    return { refused: `a merchant can have at most ${MAX_WEBHOOK_ENDPOINTS} enabled webhook endpoints` };
  }
  const webhookId = newWebhookId();
  const createdAt = new Date(now).toISOString();
  const endpoint: WebhookEndpoint = {
    merchantId,
    webhookId,
    ...settings,
    status: 'enabled',
    createdAt,
    updatedAt: createdAt,
  };
  const secret = newWebhookSecret();
  const sealed = await sealSecret(secret, { merchantId, webhookId });
  await transactWrite([
    {
      Put: {
        TableName: tableName,
        Item: {
          ...webhookKeys.endpoint(merchantId, webhookId),
          ...webhookGsi1.endpointsByMerchant(merchantId, createdAt, webhookId),
          entity: 'webhookEndpoint',
          ...endpoint,
          secrets: [{ sealed }] satisfies SigningSecret[],
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    subscriptionChange(endpoint),
  ]);
  return { endpoint, secret };
}

export async function getWebhookEndpoint(
  merchantId: string,
  webhookId: string,
): Promise<WebhookEndpoint | undefined> {
  const item = await endpointItem(merchantId, webhookId);
  return item ? toEndpoint(item) : undefined;
}

/**
 * What a delivery needs of its endpoint, in one read: the endpoint and the secrets that sign now
 * (the current one and, during a rotation, the previous one).
 */
export async function deliveryTarget(
  merchantId: string,
  webhookId: string,
  now: number,
): Promise<{ endpoint: WebhookEndpoint; secrets: string[] } | undefined> {
  const item = await endpointItem(merchantId, webhookId);
  if (!item) return undefined;
  const owner = { merchantId, webhookId };
  const signing = ((item.secrets as SigningSecret[] | undefined) ?? []).filter(
    (s) => s.expiresAt === undefined || s.expiresAt > now,
  );
  const secrets = await Promise.all(
    signing.map((s) => (s.sealed ? openSecret(s.sealed, owner) : Promise.resolve(s.secret ?? ''))),
  );
  return { endpoint: toEndpoint(item), secrets: secrets.filter((secret) => secret !== '') };
}

export async function listWebhookEndpoints(merchantId: string, limit = 100): Promise<WebhookEndpoint[]> {
  const partition = String(webhookGsi1.endpointsByMerchant(merchantId, '', '')[GSI1.partitionKey]);
  const { results } = await queryGsi1(
    [partition],
    {
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
    },
    toEndpoint,
    limit,
  );
  return results;
}

export type EndpointChanges = Partial<WebhookSettings> & {
  status?: WebhookStatus;
  /** Recorded with a change to `disabled`. */
  disabledReason?: string;
};

/**
 * Changes an endpoint's settings or status and its subscription in one transaction, conditional on
 * the endpoint not having changed since it was read. Undefined when there is no such endpoint.
 */
export async function updateWebhookEndpoint(
  merchantId: string,
  webhookId: string,
  changes: EndpointChanges,
  now: number,
): Promise<WebhookEndpoint | undefined> {
  const current = await getWebhookEndpoint(merchantId, webhookId);
  if (!current) return undefined;
  const { disabledReason, ...fields } = changes;
  const next: WebhookEndpoint = { ...current, ...fields, updatedAt: new Date(now).toISOString() };
  if (next.status === 'disabled' && current.status !== 'disabled') {
    next.disabled = { reason: disabledReason ?? 'disabled by the merchant', at: next.updatedAt };
  }
  if (next.status === 'enabled') {
    delete next.disabled;
    delete next.failingSince;
  }
  const { merchantId: _m, webhookId: _w, createdAt: _c, ...stored } = next;
  const names = Object.keys(stored);
  const removed = ['disabled', 'failingSince', 'eventTypes', 'outcomes'].filter((n) => !(n in stored));
  await transactWrite([
    {
      Update: {
        TableName: tableName,
        Key: webhookKeys.endpoint(merchantId, webhookId),
        UpdateExpression: [
          `SET ${names.map((_, i) => `#s${i} = :s${i}`).join(', ')}`,
          removed.length > 0 ? `REMOVE ${removed.map((_, i) => `#r${i}`).join(', ')}` : '',
        ].join(' '),
        ConditionExpression: '#updatedAt = :read',
        ExpressionAttributeNames: {
          ...Object.fromEntries(names.map((n, i) => [`#s${i}`, n])),
          ...Object.fromEntries(removed.map((n, i) => [`#r${i}`, n])),
          '#updatedAt': 'updatedAt',
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(names.map((n, i) => [`:s${i}`, stored[n as keyof typeof stored]])),
          ':read': current.updatedAt,
        },
      },
    },
    subscriptionChange(next),
  ]);
  return next;
}

/** Deletes an endpoint and its subscription; its past deliveries stay listed until they expire. */
export async function deleteWebhookEndpoint(merchantId: string, webhookId: string): Promise<boolean> {
  return transactWriteIfFirstHolds([
    {
      Delete: {
        TableName: tableName,
        Key: webhookKeys.endpoint(merchantId, webhookId),
        ConditionExpression: 'attribute_exists(PK)',
      },
    },
    subscriptionChange({ merchantId, webhookId, status: 'disabled' }),
  ]);
}

/**
 * A new secret signs from now on; the previous one keeps signing for 24 h so receivers can switch
 * without dropping a delivery. Returns the new secret (shown once), or undefined for no endpoint.
 */
export async function rotateWebhookSecret(
  merchantId: string,
  webhookId: string,
  now: number,
): Promise<{ secret: string; previousSecretExpiresAt: string } | undefined> {
  const item = await endpointItem(merchantId, webhookId);
  if (!item) return undefined;
  const [current] = ((item.secrets as SigningSecret[] | undefined) ?? []).filter(
    (s) => s.expiresAt === undefined,
  );
  const secret = newWebhookSecret();
  const sealed = await sealSecret(secret, { merchantId, webhookId });
  const expiresAt = now + ROTATION_OVERLAP_MS;
  // The previous one keeps its stored form: rotating never opens a secret.
  const secrets: SigningSecret[] = [{ sealed }, ...(current ? [{ ...current, expiresAt }] : [])];
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: webhookKeys.endpoint(merchantId, webhookId),
      UpdateExpression: 'SET secrets = :secrets, updatedAt = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':secrets': secrets, ':now': new Date(now).toISOString() },
    }),
  );
  return { secret, previousSecretExpiresAt: new Date(expiresAt).toISOString() };
}

/**
 * Notes an attempt's outcome on its endpoint: a success ends a failing run; a failure starts one or,
 * when the run has lasted 72 h, disables the endpoint. Returns true when this call disabled it.
 */
export async function recordEndpointHealth(
  merchantId: string,
  webhookId: string,
  succeeded: boolean,
  now: number,
): Promise<boolean> {
  const key = webhookKeys.endpoint(merchantId, webhookId);
  try {
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: succeeded
          ? 'REMOVE failingSince'
          : 'SET failingSince = if_not_exists(failingSince, :now)',
        ConditionExpression: 'attribute_exists(PK)',
        ...(succeeded ? {} : { ExpressionAttributeValues: { ':now': now } }),
        ReturnValues: 'ALL_NEW',
      }),
    );
    const endpoint = Attributes ? toEndpoint(Attributes) : undefined;
    if (endpoint?.status !== 'enabled' || !failingTooLong(endpoint.failingSince, now)) return false;
    await updateWebhookEndpoint(
      merchantId,
      webhookId,
      { status: 'disabled', disabledReason: 'every delivery failed for 72 hours' },
      now,
    );
    return true;
  } catch (error) {
    // Deleted meanwhile, or changed by someone else between the two writes: nothing to note.
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    if (error instanceof ConditionFailedError) return false;
    throw error;
  }
}

/** The subscriptions item's entry for an endpoint: set while it is enabled, removed otherwise. */
function subscriptionChange(
  endpoint: Pick<WebhookEndpoint, 'merchantId' | 'webhookId' | 'status'> & Partial<WebhookSettings>,
): TransactItem {
  const { merchantId, webhookId } = endpoint;
  const Key = webhookKeys.subscriptions(merchantId);
  const name = { '#sub': `${SUBSCRIPTION_PREFIX}${webhookId}` };
  if (endpoint.status !== 'enabled' || !endpoint.events) {
    return {
      Update: { TableName: tableName, Key, UpdateExpression: 'REMOVE #sub', ExpressionAttributeNames: name },
    };
  }
  const subscription: WebhookSubscription = {
    webhookId,
    events: endpoint.events,
    ...(endpoint.eventTypes ? { eventTypes: endpoint.eventTypes } : {}),
    ...(endpoint.outcomes ? { outcomes: endpoint.outcomes } : {}),
  };
  return {
    Update: {
      TableName: tableName,
      Key,
      UpdateExpression: 'SET #sub = :sub',
      ExpressionAttributeNames: name,
      ExpressionAttributeValues: { ':sub': subscription },
    },
  };
}

async function endpointItem(merchantId: string, webhookId: string) {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: webhookKeys.endpoint(merchantId, webhookId),
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** The endpoint as shown to its merchant: never its secrets. */
function toEndpoint(item: Record<string, unknown>): WebhookEndpoint {
  const pick = <K extends keyof WebhookEndpoint>(k: K) =>
    item[k] !== undefined ? { [k]: item[k] as WebhookEndpoint[K] } : {};
  return {
    merchantId: item.merchantId as string,
    webhookId: item.webhookId as string,
    url: item.url as string,
    events: item.events as WebhookEndpoint['events'],
    ...pick('eventTypes'),
    ...pick('outcomes'),
    status: item.status as WebhookStatus,
    ...pick('disabled'),
    ...pick('failingSince'),
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
  };
}
