import { marshall } from '@aws-sdk/util-dynamodb';
import type { KinesisStreamEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/overview-feed.ts';
import { feedOverviewCounters, type TableChange } from '../../shared/console/overview-feed.ts';
import { listOverviewCounters } from '../../shared/store/overview-counters.ts';
import { uid } from '../support/fixtures.ts';

/** A change of a decided event, as a stream delivers it: the `n`th of its shard. */
const change = (
  n: number,
  eventName: 'INSERT' | 'MODIFY',
  item: { merchantId: string; entity: string; createdAt: string; decision: object },
  shardId = 'shard-a',
): TableChange => ({
  shardId,
  sequenceNumber: String(n * 100),
  eventName,
  newImage: marshall(item),
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
const cellsOf = async (merchantId: string, type: 'order' | 'return', day: string) =>
  sorted((await listOverviewCounters(merchantId, type, day, day))[0]?.cells ?? []);

/** The overview's stream-fed day counters on DynamoDB Local. */
describe('overview counters', () => {
  it('counts inserted decisions by day, outcome, band and branch, adding across batches, not changes', async () => {
    const merchantId = `mer_${uid()}`;
    const other = `mer_${uid()}`;
    await feedOverviewCounters([
      change(1, 'INSERT', decided(merchantId, '2026-11-27T10:00:00.000Z', 'APPROVE', 12, 'default')),
      change(2, 'INSERT', decided(merchantId, '2026-11-27T11:00:00.000Z', 'APPROVE', 19, 'default')),
      change(3, 'INSERT', decided(merchantId, '2026-11-27T12:00:00.000Z', 'DECLINE', 100, 'high risk')),
      change(4, 'INSERT', decided(merchantId, '2026-11-26T23:59:59.000Z', 'REVIEW', 55, 'manual')),
      change(5, 'INSERT', decided(other, '2026-11-27T12:00:00.000Z', 'APPROVE', 1, 'default')),
      // A later change of a recorded event is the same event: not counted again.
      change(6, 'MODIFY', decided(merchantId, '2026-11-27T10:00:00.000Z', 'APPROVE', 12, 'default')),
    ]);
    await feedOverviewCounters([
      change(7, 'INSERT', decided(merchantId, '2026-11-27T13:00:00.000Z', 'APPROVE', 15, 'default')),
    ]);
    expect(await cellsOf(merchantId, 'order', '2026-11-27')).toEqual(
      sorted([
        ['APPROVE', 1, 'default', 3],
        ['DECLINE', 9, 'high risk', 1],
      ]),
    );
    expect(await cellsOf(merchantId, 'order', '2026-11-26')).toEqual([['REVIEW', 5, 'manual', 1]]);
    expect(await cellsOf(merchantId, 'return', '2026-11-27')).toEqual([]);
    expect(await cellsOf(other, 'order', '2026-11-27')).toEqual([['APPROVE', 0, 'default', 1]]);
  });

  it('counts a redelivered batch once, whole or in halves, and a batch overlapping what was counted only past it', async () => {
    const merchantId = `mer_${uid()}`;
    const at = (hour: number) => `2026-11-27T${String(hour).padStart(2, '0')}:00:00.000Z`;
    const batch = Array.from({ length: 6 }, (_, i) =>
      change(i + 1, 'INSERT', decided(merchantId, at(i), 'APPROVE', 10 * i, 'default')),
    );
    await feedOverviewCounters(batch);
    // Retried whole, then bisected, as Lambda does after a failure that came after these landed.
    await feedOverviewCounters(batch);
    await feedOverviewCounters(batch.slice(0, 3));
    await feedOverviewCounters(batch.slice(3));
    // Read again from an earlier point (a poller restarted): only the two new changes count.
    const later = [7, 8].map((n) => change(n, 'INSERT', decided(merchantId, at(n), 'DECLINE', 95, 'high')));
    await feedOverviewCounters([...batch.slice(4), ...later]);
    // Another shard's changes are counted against that shard's own mark.
    await feedOverviewCounters([
      change(1, 'INSERT', decided(merchantId, at(9), 'REVIEW', 50, 'manual'), 'shard-b'),
    ]);
    expect(await cellsOf(merchantId, 'order', '2026-11-27')).toEqual(
      sorted([
        ...Array.from({ length: 6 }, (_, i) => ['APPROVE', i, 'default', 1]),
        ['DECLINE', 9, 'high', 2],
        ['REVIEW', 5, 'manual', 1],
      ]),
    );
  });

  it("reads Kinesis records of the table's changes in the AWS function, a redelivered batch counted once", async () => {
    const merchantId = `mer_${uid()}`;
    const record = (sequenceNumber: string, eventName: string, hour: number) => ({
      eventID: `shardId-000000000007:${sequenceNumber}`,
      kinesis: {
        sequenceNumber,
        data: Buffer.from(
          JSON.stringify({
            eventName,
            dynamodb: {
              NewImage: marshall(
                decided(merchantId, `2026-11-27T${hour}:00:00.000Z`, 'REVIEW', 42, 'manual'),
              ),
            },
          }),
        ).toString('base64'),
      },
    });
    const event = {
      Records: [
        record('49590338271490256608559692538361571095921575989136588898', 'INSERT', 10),
        record('49590338271490256608559692538361571095921575989136588899', 'MODIFY', 10),
        record('49590338271490256608559692538361571095921575989136588900', 'INSERT', 11),
      ],
    } as unknown as KinesisStreamEvent;
    await handler(event);
    await handler(event);
    expect(await cellsOf(merchantId, 'order', '2026-11-27')).toEqual([['REVIEW', 4, 'manual', 2]]);
  });
});
