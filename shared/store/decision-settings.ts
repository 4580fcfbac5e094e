import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../contract/endpoints.ts';
import { type DecisionSettings, settingsFor } from '../scoring/decision-settings.ts';
import type { GuardFloors } from '../scoring/decision-thresholds.ts';
import { batchGetItems } from './batch-get.ts';
import { documentClient, tableName } from './client.ts';
import { keys, reviewCounterShards, type TableKey } from './keys.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';
import { type TransactItem, type TransactItems, transactWrite } from './transact.ts';

/**
 * A merchant's decision settings and good-customer guard per event type live on the type's
 * workflow item, which every decision of the type already reads in its one BatchGetItem: zero extra
 * reads. Workflow saves and settings saves are UpdateItems of their own attributes, so neither
 * overwrites the other; the guard's floors are written apart, off the decision path.
 */
export type FloorSource = 'measured' | 'holdout' | 'default';

export interface StoredGuard extends GuardFloors {
  source: { declineAt: FloorSource; reviewAt: FloorSource };
  /** Labeled events (and good ones) the floors were measured on: the 90 days', or the holdout's. */
  events: number;
  goodEvents: number;
  computedAt: string;
}

export interface DecisionSettingsRecord {
  /** Only what the merchant set; every other setting follows its default. */
  stored: Partial<DecisionSettings>;
  /** The settings in force. */
  settings: DecisionSettings;
  guard: StoredGuard | undefined;
  updatedAt?: string;
  updatedBy?: string;
}

const settingsKey = (merchantId: string, eventType: EventType) => keys.workflow(merchantId, eventType);

/** What a decision needs of the item: the settings in force and the stored guard. */
export function decisionPolicyFromItem(item: Record<string, unknown> | undefined, eventType: EventType) {
  const guard = item?.guard as StoredGuard | undefined;
  return {
    settings: settingsFor(eventType, item?.settings as Partial<DecisionSettings> | undefined),
    guard: typeof guard?.modelVersion === 'string' ? guard : undefined,
  };
}

function decisionSettingsFromItem(
  item: Record<string, unknown> | undefined,
  eventType: EventType,
): DecisionSettingsRecord {
  return {
    stored: (item?.settings ?? {}) as Partial<DecisionSettings>,
    ...decisionPolicyFromItem(item, eventType),
    ...(typeof item?.settingsUpdatedAt === 'string' ? { updatedAt: item.settingsUpdatedAt } : {}),
    ...(typeof item?.settingsUpdatedBy === 'string' ? { updatedBy: item.settingsUpdatedBy } : {}),
  };
}

export async function getDecisionSettings(
  merchantId: string,
  eventType: EventType,
): Promise<DecisionSettingsRecord> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: settingsKey(merchantId, eventType), ConsistentRead: true }),
  );
  return decisionSettingsFromItem(Item, eventType);
}

/**
 * Replaces what the merchant set for the event type, with the guard computed for the new budget and
 * whatever the caller adds (the audit entry), in one transaction.
 */
export async function saveDecisionSettings(
  merchantId: string,
  eventType: EventType,
  change: { stored: Partial<DecisionSettings>; guard: StoredGuard; updatedBy: string; now: number },
  alsoWrite: TransactItems = [],
): Promise<void> {
  await transactWrite([
    {
      Update: {
        TableName: tableName,
        Key: settingsKey(merchantId, eventType),
        UpdateExpression:
          'SET #settings = :settings, #guard = :guard, #at = :at, #by = :by, #entity = if_not_exists(#entity, :entity), #merchant = :merchant, #type = :type',
        ExpressionAttributeNames: {
          '#settings': 'settings',
          '#guard': 'guard',
          '#at': 'settingsUpdatedAt',
          '#by': 'settingsUpdatedBy',
          '#entity': 'entity',
          '#merchant': 'merchantId',
          '#type': 'eventType',
        },
        ExpressionAttributeValues: {
          ':settings': change.stored,
          ':guard': change.guard,
          ':at': new Date(change.now).toISOString(),
          ':by': change.updatedBy,
          ':entity': 'workflow',
          ':merchant': merchantId,
          ':type': eventType,
        },
      },
    },
    ...alsoWrite,
  ]);
}

/** Keeps newly computed floors (the nightly job, a trade-off report); the settings stay as they are. */
export async function saveGuard(merchantId: string, eventType: EventType, guard: StoredGuard): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: settingsKey(merchantId, eventType),
      UpdateExpression: 'SET #guard = :guard',
      ExpressionAttributeNames: { '#guard': 'guard' },
      ExpressionAttributeValues: { ':guard': guard },
    }),
  );
}

const DAY_MS = 86_400_000;
/** A day's counter is kept two days past its day, then the table's TTL removes it. */
const COUNTER_RETENTION_S = 2 * 86_400;

/** The UTC day of `now` as YYYY-MM-DD. */
export const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);

/** Reviews opened today for the event type, as one shard of the day's counter shows them (keys.ts). */
export const reviewCounterCount = (item: Record<string, unknown> | undefined): number =>
  typeof item?.count === 'number' ? item.count : 0;

/** Reviews opened today for the event type, every shard added up (the console's figure, exact). */
export async function reviewsOpenedToday(merchantId: string, eventType: EventType, now: number) {
  const items = await batchGetItems(reviewCounterShards(merchantId, eventType, utcDay(now)));
  return [...items.values()].reduce((total, item) => total + reviewCounterCount(item), 0);
}

/** Counts one review opened in the shard read for it (written in the event's own transaction). */
export function reviewCounted(counter: TableKey, now: number): TransactItem {
  const dayEnd = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
  return {
    Update: {
      TableName: tableName,
      Key: counter,
      UpdateExpression: 'ADD #count :one SET #ttl = if_not_exists(#ttl, :ttl), #entity = :entity',
      ExpressionAttributeNames: { '#count': 'count', '#ttl': TTL_ATTRIBUTE, '#entity': 'entity' },
      ExpressionAttributeValues: {
        ':one': 1,
        ':ttl': Math.floor(dayEnd / 1000) + COUNTER_RETENTION_S,
        ':entity': 'reviewCounter',
      },
    },
  };
}
