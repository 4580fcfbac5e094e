import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { documentClient, tableName } from '../../shared/store/client.ts';
import { overviewKeys } from '../../shared/store/keys.ts';
import type { OverviewDayRollup } from '../../shared/store/overview-rollups.ts';
import { listOverviewRollups, saveOverviewRollups } from '../../shared/store/overview-rollups.ts';
import { TTL_ATTRIBUTE } from '../../shared/store/table-definition.ts';
import { uid } from '../support/fixtures.ts';

/** The overview's daily rollup items on DynamoDB Local: saved, replaced and read by day range. */
describe('overview rollups', () => {
  it('reads the days of a range, oldest first, as last saved, and no other type or merchant', async () => {
    const merchantId = `mer_${uid()}`;
    const day = (n: number): OverviewDayRollup => ({
      day: `2026-11-${String(n).padStart(2, '0')}`,
      cells: [
        ['APPROVE', n % 10, 'default', n],
        ['DECLINE', 9, 'high risk', 1],
      ],
    });
    await saveOverviewRollups(merchantId, 'order', [1, 2, 3, 4, 5, 6].map(day));
    await saveOverviewRollups(`mer_${uid()}`, 'order', [3].map(day));
    await saveOverviewRollups(merchantId, 'return', [4].map(day));
    const revised = { ...day(4), cells: [['REVIEW', 5, '', 7]] } as OverviewDayRollup;
    await saveOverviewRollups(merchantId, 'order', [revised]);
    expect(await listOverviewRollups(merchantId, 'order', '2026-11-02', '2026-11-05')).toEqual([
      day(2),
      day(3),
      revised,
      day(5),
    ]);
    expect(await listOverviewRollups(merchantId, 'login', '2026-11-01', '2026-11-30')).toEqual([]);
    // A day's counts are kept as long as the day's events (retention `events`).
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: tableName, Key: overviewKeys.day(merchantId, 'order', '2026-11-01') }),
    );
    expect(Item?.[TTL_ATTRIBUTE]).toBe(Date.parse('2026-11-01') / 1000 + 400 * 86_400);
  });
});
