import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newServiceId } from '../ids.ts';
import {
  subscribersOf,
  TEST_EVENT_TYPE,
  type WebhookEvent,
  type WebhookNotice,
  type WebhookSubscription,
  webhookEvent,
} from '../webhooks/events.ts';
import type { NextStep } from '../webhooks/schedule.ts';
import { sha256Hex } from './canonical.ts';
import { documentClient, tableName } from './client.ts';
import { webhookGsi1, webhookKeys } from './keys.ts';
import { getRecord } from './record-once.ts';
import { GSI1, TTL_ATTRIBUTE } from './table-definition.ts';
import { ConditionFailedError, type TransactItems, transactWrite } from './transact.ts';

/**
 * The webhook outbox and its deliveries. An event's transaction writes one outbox item per webhook
 * event some endpoint subscribed to (naming those endpoints); the worker fans it out into one
 * delivery per endpoint, and each delivery records its attempts. Both wait in sparse GSI1 queues.
 */
type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface OutboxEvent {
  merchantId: string;
  /** The outbox item's own id: the event id, or a redelivery's request. */
  outboxId: string;
  eventId: string;
  type: WebhookEvent['type'];
  webhookIds: string[];
  /** The exact bytes every attempt posts and signs. */
  body: string;
  createdAt: string;
  /** Set on a redelivery request: the delivery to send again, instead of new deliveries. */
  redeliveryOf?: string;
}

export interface DeliveryAttempt {
  at: string;
  /** The receiver's HTTP status, when it answered. */
  status?: number;
  error?: string;
  latencyMs: number;
}

export interface WebhookDelivery {
  merchantId: string;
  webhookId: string;
  deliveryId: string;
  eventId: string;
  type: WebhookEvent['type'];
  body: string;
  status: DeliveryStatus;
  attempts: number;
  /** When the current run of attempts began (the event, or a redelivery): 72 h of retries from here. */
  firstDueAt: number;
  nextAttemptAt?: number;
  lastAttempt?: DeliveryAttempt;
  createdAt: string;
}

/** Outbox items and deliveries are kept 30 days, for listing and redelivery. */
const RETENTION_SECONDS = 30 * 86_400;
const retainUntil = (now: number) => Math.floor(now / 1000) + RETENTION_SECONDS;

/**
 * The outbox items to append to an event's own transaction: one per notice that some subscription
 * wants, none otherwise (no subscriptions: no extra write at all). Pure.
 */
export function webhookOutboxItems(
  merchantId: string,
  subscriptions: readonly WebhookSubscription[],
  notices: readonly WebhookNotice[],
  now: number,
): TransactItems {
  if (subscriptions.length === 0) return [];
  return notices.flatMap((notice) => {
    const webhookIds = subscribersOf(subscriptions, notice).map((s) => s.webhookId);
    if (webhookIds.length === 0) return [];
    const event = webhookEvent(newServiceId('evt'), notice.type, notice.data, now);
    return [{ Put: outboxPut(outboxOf(merchantId, event, webhookIds), now) }];
  });
}

const outboxOf = (merchantId: string, event: WebhookEvent, webhookIds: string[]): OutboxEvent => ({
  merchantId,
  outboxId: event.id,
  eventId: event.id,
  type: event.type,
  webhookIds,
  body: JSON.stringify(event),
  createdAt: event.createdAt,
});

/** The worker's intake (stream, or the local poller): every outbox item waits in its queue. */
function outboxPut(outbox: OutboxEvent, now: number) {
  return {
    TableName: tableName,
    Item: {
      ...webhookKeys.outbox(outbox.merchantId, outbox.outboxId),
      ...webhookGsi1.pendingOutbox(new Date(now).toISOString(), outbox.outboxId),
      entity: 'webhookEvent',
      ...outbox,
      [TTL_ATTRIBUTE]: retainUntil(now),
    },
    ConditionExpression: 'attribute_not_exists(PK)',
  };
}

/**
 * Asks the worker to send a `webhook.test` event to one endpoint (management API: the worker, not
 * the API function, makes the request). Returns the delivery it will make.
 */
export async function queueTestEvent(merchantId: string, webhookId: string, now: number) {
  const event = webhookEvent(newServiceId('evt'), TEST_EVENT_TYPE, { webhookId, message: 'test event' }, now);
  await documentClient.send(new PutCommand(outboxPut(outboxOf(merchantId, event, [webhookId]), now)));
  return {
    eventId: event.id,
    deliveryId: deliveryIdFor({ eventId: event.id, createdAt: event.createdAt }, webhookId),
  };
}

/** Asks the worker to send a delivery again (same event id, a fresh 72 h of retries). */
export async function queueRedelivery(delivery: WebhookDelivery, now: number): Promise<void> {
  const outbox: OutboxEvent = {
    merchantId: delivery.merchantId,
    outboxId: `${delivery.deliveryId}.${now}`,
    eventId: delivery.eventId,
    type: delivery.type,
    webhookIds: [delivery.webhookId],
    body: delivery.body,
    createdAt: delivery.createdAt,
    redeliveryOf: delivery.deliveryId,
  };
  await documentClient.send(new PutCommand(outboxPut(outbox, now)));
}

/**
 * Work waiting in one of the two queues, oldest first. `merchantId` drains one merchant only (a
 * filter, so pages are read until enough of its items are found or the queue ends).
 */
async function queued(
  queue: { [GSI1.partitionKey]: string },
  upTo: string,
  limit: number,
  merchantId: string | undefined,
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: GSI1.name,
        KeyConditionExpression: '#pk = :pk AND #sk <= :upTo',
        ...(merchantId ? { FilterExpression: 'merchantId = :merchant' } : {}),
        ExpressionAttributeNames: { '#pk': GSI1.partitionKey, '#sk': GSI1.sortKey },
        ExpressionAttributeValues: {
          ':pk': queue[GSI1.partitionKey],
          ':upTo': upTo,
          ...(merchantId ? { ':merchant': merchantId } : {}),
        },
        ScanIndexForward: true,
        Limit: limit,
        ExclusiveStartKey: startKey,
      }),
    );
    found.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && found.length < limit);
  return found.slice(0, limit);
}

export async function pendingOutboxEvents(limit: number, merchantId?: string): Promise<OutboxEvent[]> {
  const items = await queued(webhookGsi1.pendingOutbox('', ''), '\uffff', limit, merchantId);
  return items.map((item) => toOutboxEvent(item));
}

export async function dueDeliveries(
  now: number,
  limit: number,
  merchantId?: string,
): Promise<WebhookDelivery[]> {
  const upTo = `${new Date(now).toISOString()}\uffff`;
  const items = await queued(webhookGsi1.dueDelivery('', ''), upTo, limit, merchantId);
  return items.map(toDelivery);
}

/** The one delivery of an event to an endpoint: a repeated fan-out finds it already there. */
const deliveryIdFor = (event: Pick<OutboxEvent, 'eventId' | 'createdAt'>, webhookId: string) =>
  `whd_${Date.parse(event.createdAt).toString(36).padStart(9, '0')}${sha256Hex(`${event.eventId}|${webhookId}`).slice(0, 16)}`;

/**
 * Turns an outbox item into its deliveries, due now, and takes it off the outbox queue, in one
 * transaction. Repeating it (a retried stream batch) adds nothing. Returns the deliveries still
 * pending: the new ones, or on a repeat those made before that are not delivered yet.
 */
export async function fanOutOutboxEvent(event: OutboxEvent, now: number): Promise<WebhookDelivery[]> {
  const dequeue: TransactItems = [
    {
      Update: {
        TableName: tableName,
        Key: webhookKeys.outbox(event.merchantId, event.outboxId),
        UpdateExpression: 'REMOVE #pk, #sk',
        ExpressionAttributeNames: { '#pk': GSI1.partitionKey, '#sk': GSI1.sortKey },
      },
    },
  ];
  if (event.redeliveryOf) {
    const [webhookId = ''] = event.webhookIds;
    const again = await redeliver(event.merchantId, webhookId, event.redeliveryOf, now);
    await transactWrite(dequeue);
    return again ? [again] : [];
  }
  const deliveries = event.webhookIds.map(
    (webhookId): WebhookDelivery => ({
      merchantId: event.merchantId,
      webhookId,
      deliveryId: deliveryIdFor(event, webhookId),
      eventId: event.eventId,
      type: event.type,
      body: event.body,
      status: 'pending',
      attempts: 0,
      firstDueAt: now,
      nextAttemptAt: now,
      createdAt: event.createdAt,
    }),
  );
  try {
    await transactWrite([
      ...deliveries.map((d) => ({
        Put: {
          TableName: tableName,
          Item: deliveryItem(d, now),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      })),
      ...dequeue,
    ]);
    return deliveries;
  } catch (error) {
    if (!(error instanceof ConditionFailedError)) throw error;
    // Made by an earlier run whose queueing may not have finished: the pending ones are queued again.
    await transactWrite(dequeue);
    const made = await Promise.all(
      deliveries.map((d) => getDelivery(d.merchantId, d.webhookId, d.deliveryId)),
    );
    return made.filter((d): d is WebhookDelivery => d?.status === 'pending');
  }
}

/** A `webhook.test` event for one endpoint, due now (it skips the outbox: no decision is involved). */
export async function createTestDelivery(
  merchantId: string,
  webhookId: string,
  now: number,
): Promise<WebhookDelivery> {
  const event = webhookEvent(newServiceId('evt'), TEST_EVENT_TYPE, { webhookId, message: 'test event' }, now);
  const delivery: WebhookDelivery = {
    merchantId,
    webhookId,
    deliveryId: deliveryIdFor({ eventId: event.id, createdAt: event.createdAt }, webhookId),
    eventId: event.id,
    type: event.type,
    body: JSON.stringify(event),
    status: 'pending',
    attempts: 0,
    firstDueAt: now,
    nextAttemptAt: now,
    createdAt: event.createdAt,
  };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: deliveryItem(delivery, now),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return delivery;
}

export async function getDelivery(
  merchantId: string,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDelivery | undefined> {
  const item = await getRecord<Record<string, unknown>>(
    webhookKeys.delivery(merchantId, webhookId, deliveryId),
  );
  return item ? toDelivery(item) : undefined;
}

/** An endpoint's deliveries, newest first. */
export async function listDeliveries(
  merchantId: string,
  webhookId: string,
  limit: number,
): Promise<WebhookDelivery[]> {
  const { Items } = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: {
        ':pk': webhookKeys.endpoint(merchantId, webhookId).PK,
        ':prefix': webhookKeys.deliveryPrefix,
      },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (Items ?? []).map(toDelivery);
}

/**
 * Records one attempt and what follows it (delivered, due again later, or failed), conditional on no
 * other worker having recorded an attempt meanwhile. Returns false when one had (nothing written).
 */
export async function recordAttempt(
  delivery: WebhookDelivery,
  attempt: DeliveryAttempt,
  next: NextStep,
): Promise<boolean> {
  const pending = next.status === 'pending';
  const due = pending
    ? webhookGsi1.dueDelivery(new Date(next.nextAttemptAt).toISOString(), delivery.deliveryId)
    : undefined;
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: webhookKeys.delivery(delivery.merchantId, delivery.webhookId, delivery.deliveryId),
        UpdateExpression: [
          'SET attempts = :attempts, lastAttempt = :attempt, #status = :status',
          due ? ', nextAttemptAt = :next, #pk = :gpk, #sk = :gsk' : ' REMOVE nextAttemptAt, #pk, #sk',
        ].join(''),
        ConditionExpression: 'attempts = :read',
        ExpressionAttributeNames: { '#status': 'status', '#pk': GSI1.partitionKey, '#sk': GSI1.sortKey },
        ExpressionAttributeValues: {
          ':attempts': delivery.attempts + 1,
          ':attempt': attempt,
          ':status': next.status,
          ':read': delivery.attempts,
          ...(due && pending
            ? { ':next': next.nextAttemptAt, ':gpk': due[GSI1.partitionKey], ':gsk': due[GSI1.sortKey] }
            : {}),
        },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Sends a delivery again from now (a fresh 72 h of retries), keeping its event id and history. */
export async function redeliver(
  merchantId: string,
  webhookId: string,
  deliveryId: string,
  now: number,
): Promise<WebhookDelivery | undefined> {
  const due = webhookGsi1.dueDelivery(new Date(now).toISOString(), deliveryId);
  try {
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: webhookKeys.delivery(merchantId, webhookId, deliveryId),
        UpdateExpression:
          'SET #status = :pending, firstDueAt = :now, nextAttemptAt = :now, #pk = :gpk, #sk = :gsk',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#status': 'status', '#pk': GSI1.partitionKey, '#sk': GSI1.sortKey },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':now': now,
          ':gpk': due[GSI1.partitionKey],
          ':gsk': due[GSI1.sortKey],
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? toDelivery(Attributes) : undefined;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

function deliveryItem(delivery: WebhookDelivery, now: number): Record<string, unknown> {
  return {
    ...webhookKeys.delivery(delivery.merchantId, delivery.webhookId, delivery.deliveryId),
    ...webhookGsi1.dueDelivery(new Date(delivery.nextAttemptAt ?? now).toISOString(), delivery.deliveryId),
    entity: 'webhookDelivery',
    ...delivery,
    [TTL_ATTRIBUTE]: retainUntil(now),
  };
}

function toOutboxEvent(item: Record<string, unknown>): OutboxEvent {
  return {
    merchantId: item.merchantId as string,
    outboxId: item.outboxId as string,
    ...(typeof item.redeliveryOf === 'string' ? { redeliveryOf: item.redeliveryOf } : {}),
    eventId: item.eventId as string,
    type: item.type as OutboxEvent['type'],
    webhookIds: item.webhookIds as string[],
    body: item.body as string,
    createdAt: item.createdAt as string,
  };
}

function toDelivery(item: Record<string, unknown>): WebhookDelivery {
  return {
    merchantId: item.merchantId as string,
    webhookId: item.webhookId as string,
    deliveryId: item.deliveryId as string,
    eventId: item.eventId as string,
    type: item.type as WebhookDelivery['type'],
    body: item.body as string,
    status: item.status as DeliveryStatus,
    attempts: item.attempts as number,
    firstDueAt: item.firstDueAt as number,
    ...(typeof item.nextAttemptAt === 'number' ? { nextAttemptAt: item.nextAttemptAt } : {}),
    ...(item.lastAttempt ? { lastAttempt: item.lastAttempt as DeliveryAttempt } : {}),
    createdAt: item.createdAt as string,
  };
}
