import { marshall } from '@aws-sdk/util-dynamodb';
import type { FirehoseTransformationEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { transformLakeRecords } from '../../shared/lake/firehose-transform.ts';
import { lakeRowsOfItem } from '../../shared/lake/lake-rows.ts';
import type { Decision } from '../../shared/scoring/decide.ts';
import { decidedEventItem } from '../../shared/store/decided-events.ts';
import { keys } from '../../shared/store/keys.ts';

const decision = (abuseScore: number): Decision => ({
  decision: 'APPROVE',
  subDecision: 'default_approve',
  decisionType: 'APPROVE/DECLINE',
  reason: 'r',
  abuseScore,
  modelVersion: 'return-1',
  workflowVersion: 'default-return-1',
  signals: { usedBefore: abuseScore / 100 },
});
const at = Date.parse('2026-11-02T08:00:00.000Z');
const returned = decidedEventItem({ eventType: 'return', key: keys.order('mer_t', 'r-1'), eventId: 'r-1' }, {
  merchantId: 'mer_t',
  createdAt: new Date(at).toISOString(),
  eventAt: at,
  decisions: [decision(10), { itemRef: 'SKU:b', decision: decision(70) }],
  identities: ['email#abc', 'device#def'],
} as Parameters<typeof decidedEventItem>[1]);

/** A change as Kinesis Data Streams for DynamoDB writes it, as Firehose hands it to the transform. */
function firehoseEvent(...changes: object[]): FirehoseTransformationEvent {
  return {
    invocationId: 'i',
    deliveryStreamArn: 'arn:aws:firehose:us-east-1:1:deliverystream/x',
    region: 'us-east-1',
    records: changes.map((change, i) => ({
      recordId: `r${i}`,
      approximateArrivalTimestamp: at + 5_000,
      data: Buffer.from(JSON.stringify(change)).toString('base64'),
    })),
  };
}
const change = (eventName: string, item: Record<string, unknown>) => ({
  eventName,
  dynamodb: {
    ApproximateCreationDateTime: at + 1_000,
    NewImage: marshall(item, { removeUndefinedValues: true }),
  },
});

describe('the Firehose transform of a lake table', () => {
  it("turns a return's change into its rows, one JSON document per line, with the partition Firehose writes to", () => {
    const [record] = transformLakeRecords(
      'decided_events',
      firehoseEvent(change('INSERT', returned)),
    ).records;
    expect(record).toMatchObject({
      recordId: 'r0',
      result: 'Ok',
      metadata: { partitionKeys: { kind: 'return', merchant_id: 'mer_t', day: '2026-11-02' } },
    });
    const documents = Buffer.from(record!.data ?? '', 'base64')
      .toString('utf8')
      .replaceAll('}{', '}\n{')
      .split('\n');
    const rows = documents.map((d) => JSON.parse(d));
    expect(rows).toEqual(lakeRowsOfItem(returned, at + 1_000).map((row) => row.values));
    expect(rows.map((r) => [r.part, r.abuse_score, r.event_id])).toEqual([
      [0, 10, 'r-1'],
      [1, 70, 'r-1'],
    ]);
  });

  it("drops what is not this table's: another table's rows, other items, deletions", () => {
    const merchant = { PK: 'MERCHANT#mer_t', SK: 'PROFILE', entity: 'merchant', merchantId: 'mer_t' };
    const results = transformLakeRecords(
      'feedback',
      firehoseEvent(change('INSERT', returned), change('MODIFY', merchant), {
        eventName: 'REMOVE',
        dynamodb: {},
      }),
    ).records;
    expect(results.map((r) => [r.recordId, r.result])).toEqual([
      ['r0', 'Dropped'],
      ['r1', 'Dropped'],
      ['r2', 'Dropped'],
    ]);
  });
});
