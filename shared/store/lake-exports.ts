import { retainUntil } from '../retention.ts';
import type { LakeExportFormat, LakeExportKind } from '../schemas/lake-export.ts';
import { tableName } from './client.ts';
import { jobItemAttributes } from './job-items.ts';
import { lakeExportGsi1, lakeExportKeys } from './keys.ts';
import { firstInGsi1Partition } from './query-all.ts';
import { getRecord } from './record-once.ts';
import { setFields } from './set-fields.ts';
import { GSI1, TTL_ATTRIBUTE } from './table-definition.ts';
import { ConditionFailedError, type TransactItem, transactWrite } from './transact.ts';

/**
 * A bulk export as stored: what was asked, by whom, and its outcome (the files' keys in the exports
 * bucket). It waits in GSI1's pending queue until it ends.
 */
export interface LakeExport {
  merchantId: string;
  exportId: string;
  status: 'pending' | 'done' | 'failed';
  from: string;
  to: string;
  format: LakeExportFormat;
  kinds: LakeExportKind[];
  /** The console key that asked: the outcome's audit entry names it. */
  requestedBy: { keyId: string; keyName: string };
  createdAt: string;
  finishedAt?: string;
  files?: { kind: LakeExportKind; key: string }[];
  /** When the files' links expire. */
  expiresAt?: string;
  reason?: string;
}

export type LakeExportOutcome = Pick<LakeExport, 'status' | 'files' | 'expiresAt' | 'reason'>;

/** Matches the item itself, as the table holds it: its entity marks it for the state machine's start. */
export const LAKE_EXPORT_ENTITY = 'lakeExport';

export async function createLakeExport(record: LakeExport, audit: TransactItem, now: number): Promise<void> {
  await transactWrite([
    {
      Put: {
        TableName: tableName,
        Item: {
          ...lakeExportKeys.export(record.merchantId, record.exportId),
          ...lakeExportGsi1.pending(record.createdAt, record.merchantId, record.exportId),
          ...jobItemAttributes(LAKE_EXPORT_ENTITY, record.exportId),
          ...record,
          [TTL_ATTRIBUTE]: retainUntil('lakeExports', now),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    audit,
  ]);
}

export const getLakeExport = (merchantId: string, exportId: string) =>
  getRecord<LakeExport>(lakeExportKeys.export(merchantId, exportId));

/** Exports waiting to run, oldest first. */
export const pendingLakeExports = (limit: number) =>
  firstInGsi1Partition<LakeExport>(lakeExportGsi1.pendingPartition, limit);

/**
 * The export's outcome with its audit entry, once: it leaves the queue, and a repeat (a retried
 * step) finds it no longer pending and changes nothing. Answers whether this call recorded it.
 */
export async function finishLakeExport(
  record: Pick<LakeExport, 'merchantId' | 'exportId'>,
  outcome: LakeExportOutcome,
  audit: TransactItem,
  now: number,
): Promise<boolean> {
  const set = setFields({ ...outcome, finishedAt: new Date(now).toISOString() });
  try {
    await transactWrite([
      {
        Update: {
          TableName: tableName,
          Key: lakeExportKeys.export(record.merchantId, record.exportId),
          UpdateExpression: `${set.expression} REMOVE #gpk, #gsk`,
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: {
            ...set.names,
            '#status': 'status',
            '#gpk': GSI1.partitionKey,
            '#gsk': GSI1.sortKey,
          },
          ExpressionAttributeValues: { ...set.values, ':pending': 'pending' },
        },
      },
      audit,
    ]);
    return true;
  } catch (error) {
    if (error instanceof ConditionFailedError) return false;
    throw error;
  }
}
