import { beforeAll, describe, expect, it } from 'vitest';
import { dynamoDbClient } from '../../shared/store/client.ts';
import { listDecidedEvents } from '../../shared/store/decided-events.ts';
import { merchantWithOrders } from '../support/decided-orders.ts';

/**
 * A listing reads about `limit` items from the 64 shards of a merchant's event index, however many
 * the merchant has: items read are counted from DynamoDB's own ScannedCount on every Query sent.
 */
const SMALL = 1_000;
const LARGE = 100_000;
const START = Date.parse('2026-01-01T00:00:00.000Z');

let scanned = 0;
dynamoDbClient.middlewareStack.add(
  (next, context) => async (args) => {
    const result = await next(args);
    if (context.commandName === 'QueryCommand')
      scanned += (result.output as { ScannedCount?: number }).ScannedCount ?? 0;
    return result;
  },
  { step: 'initialize', name: 'scannedCounter' },
);

async function itemsReadListing(merchantId: string, limit: number) {
  const before = scanned;
  const { events, more } = await listDecidedEvents(merchantId, 'order', 0, limit);
  return { events, more, itemsRead: scanned - before };
}

let small: { merchantId: string; orderIds: string[] };
let large: { merchantId: string; orderIds: string[] };

beforeAll(async () => {
  small = await merchantWithOrders(SMALL, START);
  large = await merchantWithOrders(LARGE, START);
});

describe('queryGsi1 over 64 shards', () => {
  it.each([20, 200, 800])(
    'lists the newest %i reading about as many items for 1,000 events as for 100,000',
    async (limit) => {
      const smallRead = await itemsReadListing(small.merchantId, limit);
      const largeRead = await itemsReadListing(large.merchantId, limit);
      for (const [read, { orderIds }] of [
        [smallRead, small],
        [largeRead, large],
      ] as const) {
        expect(read.events.map((e) => e.eventId)).toEqual(orderIds.slice(-limit).reverse());
        expect(read.more).toBe(true);
      }
      console.log(
        `limit ${limit}: ${smallRead.itemsRead} items read of 1,000, ${largeRead.itemsRead} of 100,000`,
      );
      // One item a shard at least (64), then about what is missing: never the 64 × limit of a read per shard.
      const bound = Math.ceil(1.5 * limit) + 2 * 64;
      expect(smallRead.itemsRead).toBeLessThanOrEqual(bound);
      expect(largeRead.itemsRead).toBeLessThanOrEqual(bound);
      expect(Math.abs(largeRead.itemsRead - smallRead.itemsRead)).toBeLessThanOrEqual(0.25 * bound);
    },
  );

  it('lists all of a merchant shorter than the limit, and says there is no more', async () => {
    const read = await itemsReadListing(small.merchantId, 5_000);
    expect(read.events.map((e) => e.eventId)).toEqual([...small.orderIds].reverse());
    expect(read.more).toBe(false);
    expect(read.itemsRead).toBe(SMALL);
  });
});
