import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { retainUntil } from '../retention.ts';
import { documentClient, tableName } from './client.ts';
import { privacyGsi1, privacyKeys } from './keys.ts';
import type { DeletedItems, ItemScan } from './merchant-items.ts';
import { firstInGsi1Partition } from './query-all.ts';
import { getRecord } from './record-once.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';

/**
 * A merchant's offboarding as stored (shared/use-cases/offboard-merchant.ts): one item per merchant,
 * outside its key scope and naming it as `offboardedMerchantId`, never `merchantId`, so that the
 * deletion it drives does not find it. While running it waits in GSI1's offboarding queue with the
 * step it is at, the Scan's cursor and the counts so far; done, it is the receipt, listed for the
 * restore runbook (privacyGsi1.offboarded). It outlives the merchant (the tombstones' retention).
 */
type OffboardingStep = 'withdraw' | 'items' | 'objects' | 'lake' | 'digestKey';

export interface Offboarding {
  offboardedMerchantId: string;
  status: 'running' | 'done' | 'failed';
  startedAt: string;
  /** Whether the profile was still there when this run started (a repeated run finds none). */
  found: boolean;
  step: OffboardingStep;
  scan: ItemScan;
  items: DeletedItems;
  /** Objects deleted per bucket and in the lake, as each step ends. */
  objects: Record<string, number | 'not configured'>;
  /** Slices recorded: a slice writes only over the state it read. */
  slices: number;
  /** Slices that failed since the last recorded one (the run fails at MAX_OFFBOARDING_ATTEMPTS). */
  attempts: number;
  /** When it finished (done or failed). */
  at?: string;
  reason?: string;
}

export const getOffboarding = (merchantId: string) =>
  getRecord<Offboarding>(privacyKeys.offboarded(merchantId));

/** Running offboardings, oldest first. */
export const runningOffboardings = (limit: number) =>
  firstInGsi1Partition<Offboarding>(privacyGsi1.offboardingPartition, limit);

const itemOf = (job: Offboarding, now: number) => ({
  ...privacyKeys.offboarded(job.offboardedMerchantId),
  ...(job.status === 'running'
    ? privacyGsi1.offboarding(job.startedAt, job.offboardedMerchantId)
    : privacyGsi1.offboarded(job.at ?? job.startedAt, job.offboardedMerchantId)),
  entity: 'offboardedMerchant',
  ...job,
  [TTL_ATTRIBUTE]: retainUntil('tombstones', now),
});

/**
 * A new run, unless one is running (then that one goes on): returns the run in force. A finished
 * run's receipt is replaced by the new run's.
 */
export async function startOffboarding(job: Offboarding, now: number): Promise<Offboarding> {
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: itemOf(job, now),
        ConditionExpression: 'attribute_not_exists(PK) OR #status <> :running',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': 'running' },
      }),
    );
    return job;
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    return (await getOffboarding(job.offboardedMerchantId)) ?? job;
  }
}

/**
 * The state after a slice (or a failed one), over the state the slice read: a repeated or stale
 * slice writes nothing. Each write while running wakes the worker again in AWS (the table's stream).
 * Returns whether it was recorded.
 */
export async function recordOffboardingSlice(
  read: Offboarding,
  next: Offboarding,
  now: number,
): Promise<boolean> {
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: itemOf(next, now),
        ConditionExpression: '#status = :running AND #slices = :slices AND #attempts = :attempts',
        ExpressionAttributeNames: { '#status': 'status', '#slices': 'slices', '#attempts': 'attempts' },
        ExpressionAttributeValues: {
          ':running': 'running',
          ':slices': read.slices,
          ':attempts': read.attempts,
        },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
