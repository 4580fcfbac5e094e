import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { WithdrawalProgress } from '../schemas/network.ts';
import { documentClient, tableName } from './client.ts';
import { networkKeys } from './keys.ts';
import { WITHDRAWAL_CAUSE } from './network-items.ts';

/**
 * A leaving member's withdrawal, as a job: its work item (queued with the audited profile change)
 * carries the progress. The worker removes ledger entries slice by slice; each slice ends by adding
 * what it withdrew, a write that keeps the item queued, so the table's stream (or the local poller)
 * brings it back for the next slice, until no entry is left and it is marked finished. Every write is
 * conditional on the item still being the withdrawal it read (`queuedAt`): leaving again restarts it.
 */
const workKey = (merchantId: string) => networkKeys.work(merchantId, WITHDRAWAL_CAUSE);

async function updateWithdrawal(
  merchantId: string,
  queuedAt: number,
  update: { expression: string; values: Record<string, unknown> },
): Promise<void> {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: workKey(merchantId),
        UpdateExpression: update.expression,
        ConditionExpression: 'queuedAt = :queuedAt',
        ExpressionAttributeValues: { ':queuedAt': queuedAt, ...update.values },
      }),
    );
  } catch (error) {
    // Left again meanwhile: the newer withdrawal counts from zero.
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/** Adds one slice's withdrawn entries (the write that brings the item back for the next slice). */
export function recordWithdrawalSlice(merchantId: string, queuedAt: number, withdrawn: number, now: number) {
  return updateWithdrawal(merchantId, queuedAt, {
    expression:
      'SET withdrawalUpdatedAt = :now, withdrawalSlices = if_not_exists(withdrawalSlices, :zero) + :one ADD withdrawn :n',
    values: { ':now': now, ':n': withdrawn, ':zero': 0, ':one': 1 },
  });
}

/** No ledger entry is left: the withdrawal is finished (before it leaves the queue). */
export function finishWithdrawal(merchantId: string, queuedAt: number, withdrawn: number, now: number) {
  return updateWithdrawal(merchantId, queuedAt, {
    expression:
      'SET withdrawalUpdatedAt = :now, withdrawalFinishedAt = if_not_exists(withdrawalFinishedAt, :now) ADD withdrawn :n',
    values: { ':now': now, ':n': withdrawn },
  });
}

/** The merchant's latest withdrawal, if it ever left. */
export async function readWithdrawal(merchantId: string): Promise<WithdrawalProgress | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: workKey(merchantId) }),
  );
  if (!Item?.withdraw) return undefined;
  const iso = (ms: unknown) => new Date(Number(ms)).toISOString();
  return {
    status: Item.withdrawalFinishedAt === undefined ? 'running' : 'done',
    withdrawn: Number(Item.withdrawn ?? 0),
    startedAt: iso(Item.queuedAt),
    ...(Item.withdrawalUpdatedAt !== undefined ? { updatedAt: iso(Item.withdrawalUpdatedAt) } : {}),
    ...(Item.withdrawalFinishedAt !== undefined ? { finishedAt: iso(Item.withdrawalFinishedAt) } : {}),
  };
}
