import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { FirehoseTransformationEvent, FirehoseTransformationResult } from 'aws-lambda';
import { lakeRowsOfItem } from './lake-rows.ts';
import type { LakeTableName } from './lake-tables.ts';

/**
 * The Firehose transform of one lake table's delivery stream: each record is a change of the table
 * as Kinesis Data Streams for DynamoDB writes it; a new image that makes rows of this table becomes
 * those rows (concatenated JSON documents, which Firehose's format conversion reads one by one) with
 * their partition (kind, merchant, day) for dynamic partitioning. Every other record is dropped:
 * another table's rows, items that are not lake records, and deletions (docs/lake.md, Deletions).
 */
interface DynamoDbChange {
  eventName?: 'INSERT' | 'MODIFY' | 'REMOVE';
  dynamodb?: { ApproximateCreationDateTime?: number; NewImage?: Parameters<typeof unmarshall>[0] };
}

export function transformLakeRecords(
  table: LakeTableName,
  event: FirehoseTransformationEvent,
): FirehoseTransformationResult {
  return {
    records: event.records.map((record) => {
      const change = JSON.parse(Buffer.from(record.data, 'base64').toString('utf8')) as DynamoDbChange;
      const image = change.dynamodb?.NewImage;
      const rows =
        change.eventName === 'REMOVE' || !image
          ? []
          : lakeRowsOfItem(
              unmarshall(image),
              change.dynamodb?.ApproximateCreationDateTime ?? record.approximateArrivalTimestamp,
            ).filter((row) => row.table === table);
      const first = rows[0];
      if (!first) return { recordId: record.recordId, result: 'Dropped' as const, data: record.data };
      return {
        recordId: record.recordId,
        result: 'Ok' as const,
        data: Buffer.from(rows.map((row) => JSON.stringify(row.values)).join('')).toString('base64'),
        metadata: { partitionKeys: { kind: first.kind, merchant_id: first.merchantId, day: first.day } },
      };
    }),
  };
}
