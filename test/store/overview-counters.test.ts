import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { feedOverviewCounters } from '../../shared/console/overview-feed.ts';
import { getOverviewCounters } from '../../shared/store/overview-counters.ts';
import { uid } from '../support/fixtures.ts';

/** A stream record of a decided event, as the table's stream delivers it. */
const streamRecord = (
  eventName: 'INSERT' | 'MODIFY',
  item: { merchantId: string; entity: string; createdAt: string; decision: object },
): DynamoDBRecord => ({
  eventName,
  dynamodb: { NewImage: marshall(item) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'] },
});

const decided = (
  merchantId: string,
  createdAt: string,
  decision: string,
  abuseScore: number,
  subDecision: string,
) => ({
  merchantId,
  entity: 'order',
  createdAt,
  decision: { decision, abuseScore, subDecision },
});

const sorted = <T>(cells: T[]) => [...cells].sort((a, b) => String(a).localeCompare(String(b)));

/** The overview's stream-fed day counters on DynamoDB Local. */
describe('overview counters', () => {
  it('counts inserted decisions by day, outcome, band and branch, adding across batches, not changes', async () => {
    const merchantId = `mer_${uid()}`;
    const other = `mer_${uid()}`;
    await feedOverviewCounters([
      streamRecord('INSERT', decided(merchantId, '2026-11-27T10:00:00.000Z', 'APPROVE', 12, 'default')),
      streamRecord('INSERT', decided(merchantId, '2026-11-27T11:00:00.000Z', 'APPROVE', 19, 'default')),
      streamRecord('INSERT', decided(merchantId, '2026-11-27T12:00:00.000Z', 'DECLINE', 100, 'high risk')),
      streamRecord('INSERT', decided(merchantId, '2026-11-26T23:59:59.000Z', 'REVIEW', 55, 'manual')),
      streamRecord('INSERT', decided(other, '2026-11-27T12:00:00.000Z', 'APPROVE', 1, 'default')),
      // A later change of a recorded event is the same event: not counted again.
      streamRecord('MODIFY', decided(merchantId, '2026-11-27T10:00:00.000Z', 'APPROVE', 12, 'default')),
    ]);
    await feedOverviewCounters([
      streamRecord('INSERT', decided(merchantId, '2026-11-27T13:00:00.000Z', 'APPROVE', 15, 'default')),
    ]);
    const today = await getOverviewCounters(merchantId, 'order', '2026-11-27');
    expect(sorted(today.cells)).toEqual(
      sorted([
        ['APPROVE', 1, 'default', 3],
        ['DECLINE', 9, 'high risk', 1],
      ]),
    );
    expect((await getOverviewCounters(merchantId, 'order', '2026-11-26')).cells).toEqual([
      ['REVIEW', 5, 'manual', 1],
    ]);
    expect((await getOverviewCounters(merchantId, 'return', '2026-11-27')).cells).toEqual([]);
    expect((await getOverviewCounters(other, 'order', '2026-11-27')).cells).toEqual([
      ['APPROVE', 0, 'default', 1],
    ]);
  });
});
