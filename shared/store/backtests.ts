import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../contract/endpoints.ts';
import { retainUntil } from '../retention.ts';
import type { BacktestCoverage, BacktestReport } from '../scoring/backtest.ts';
import type { Workflow } from '../scoring/workflow.ts';
import { documentClient, tableName } from './client.ts';
import { jobItemAttributes } from './job-items.ts';
import { backtestGsi1, backtestKeys } from './keys.ts';
import { firstInGsi1Partition } from './query-all.ts';
import { getRecord } from './record-once.ts';
import { setFields } from './set-fields.ts';
import { GSI1, TTL_ATTRIBUTE } from './table-definition.ts';

/**
 * A workflow backtest as stored: the candidate, its window, and its outcome (the report and what it
 * stands on, or why it failed). It waits in GSI1's pending queue until it ends.
 */
export interface Backtest {
  merchantId: string;
  backtestId: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  eventType: EventType;
  /** First and last day (UTC), inclusive. */
  from: string;
  to: string;
  candidate: Workflow;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  coverage?: BacktestCoverage;
  report?: BacktestReport;
  reason?: string;
}

/** Matches the item itself, as the table holds it: its entity marks it for the state machine's start. */
export const BACKTEST_ENTITY = 'backtest';

export async function createBacktest(record: Backtest, now: number): Promise<void> {
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...backtestKeys.backtest(record.merchantId, record.backtestId),
        ...backtestGsi1.pending(record.createdAt, record.merchantId, record.backtestId),
        ...jobItemAttributes(BACKTEST_ENTITY, record.backtestId),
        ...record,
        [TTL_ATTRIBUTE]: retainUntil('backtests', now),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export const getBacktest = (merchantId: string, backtestId: string) =>
  getRecord<Backtest>(backtestKeys.backtest(merchantId, backtestId));

/** Backtests waiting to run (or cut off while running), oldest first. */
export const pendingBacktests = (limit: number) =>
  firstInGsi1Partition<Backtest>(backtestGsi1.pendingPartition, limit);

type Ids = Pick<Backtest, 'merchantId' | 'backtestId'>;

/** The job has started (again, after a retried step): it stays in the queue until it ends. */
export const markBacktestRunning = (record: Ids, now: number) =>
  updateUnfinished(record, { status: 'running', startedAt: new Date(now).toISOString() }, false);

/**
 * The outcome, once: the backtest leaves the queue, and a repeat (a retried step) finds it ended and
 * changes nothing. Answers whether this call recorded it.
 */
export const finishBacktest = (
  record: Ids,
  outcome: Pick<Backtest, 'status' | 'coverage' | 'report' | 'reason'>,
  now: number,
) => updateUnfinished(record, { ...outcome, finishedAt: new Date(now).toISOString() }, true);

async function updateUnfinished(
  record: Ids,
  changes: Partial<Backtest>,
  leaveQueue: boolean,
): Promise<boolean> {
  const set = setFields(changes);
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: backtestKeys.backtest(record.merchantId, record.backtestId),
        UpdateExpression: `${set.expression}${leaveQueue ? ' REMOVE #gpk, #gsk' : ''}`,
        ConditionExpression: '#status IN (:pending, :running)',
        ExpressionAttributeNames: {
          ...set.names,
          '#status': 'status',
          ...(leaveQueue ? { '#gpk': GSI1.partitionKey, '#gsk': GSI1.sortKey } : {}),
        },
        ExpressionAttributeValues: { ...set.values, ':pending': 'pending', ':running': 'running' },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
