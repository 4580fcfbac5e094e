import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

// A table of its own, with its stream: the overview feed reads the table's whole stream, which then
// holds this suite's writes alone.
vi.hoisted(() => {
  process.env.TABLE_NAME = `overview-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});

const { marshall } = await import('@aws-sdk/util-dynamodb');
const { overviewFeed } = await import('../../local/overview-poller.ts');
const { feedOverviewCounters } = await import('../../shared/console/overview-feed.ts');
const { OVERVIEW_LIMITS } = await import('../../shared/schemas/console.ts');
const { dynamoDbClient } = await import('../../shared/store/client.ts');
const { saveOverviewRollups } = await import('../../shared/store/overview-rollups.ts');
const { expectError, newMerchant, withOwnTableApi } = await import('../support/api.ts');
const { consoleKey, orderAndReturn, reviewEveryReturn, saveWorkflow } = await import('../support/console.ts');
const { placeOrder } = await import('../support/commerce.ts');
const { merchantWithOrders } = await import('../support/decided-orders.ts');

const DAY = 86_400_000;
const day = (ago: number) => new Date(Date.now() - ago * DAY).toISOString().slice(0, 10);

/** Items read, from DynamoDB's own ScannedCount of every Query and one per item a Get answers. */
let itemsRead = 0;
dynamoDbClient.middlewareStack.add(
  (next, context) => async (args) => {
    const result = await next(args);
    const output = result.output as { ScannedCount?: number; Item?: unknown };
    if (context.commandName === 'QueryCommand') itemsRead += output.ScannedCount ?? 0;
    if (context.commandName === 'GetItemCommand' && output.Item) itemsRead += 1;
    return result;
  },
  { step: 'initialize', name: 'itemsReadCounter' },
);

/**
 * GET /v1/overview through the local server, with the local overview feed (the same code as the AWS
 * feed function) reading DynamoDB Local's stream between the requests and the overview.
 */
describe('the overview, today from the stream-fed counters', () => {
  const suite = withOwnTableApi(undefined, { stream: true });
  const feed = overviewFeed();
  const overview = async (key: string, query = '') => {
    const response = await suite.api.request('GET', `/v1/overview${query}`, { apiKey: key });
    expect(response.status, response.text).toBe(200);
    return response.body;
  };
  const decidedIn = (days: Record<string, number>[]) =>
    days.reduce((n, d) => n + d.APPROVE! + d.DECLINE! + d.REVIEW!, 0);

  it("shows today's decisions once the feed has read them, with score bands, reasons and open reviews", async () => {
    const { merchantId, apiKey } = await newMerchant();
    const key = await consoleKey(merchantId);
    expect((await saveWorkflow(suite.api, key, 'return', reviewEveryReturn)).status).toBe(200);
    await placeOrder(suite.api, apiKey);
    await orderAndReturn(suite.api, apiKey);
    const before = await overview(key, `?from=${day(0)}&to=${day(0)}`);
    expect(before.days).toEqual([]);
    expect(before).not.toHaveProperty('truncated');

    await feed();
    const body = await overview(key, `?from=${day(0)}&to=${day(0)}`);
    expect(body.days.map((d: { eventType: string }) => d.eventType)).toEqual(['order', 'return']);
    expect(body.days.every((d: { day: string }) => d.day === day(0))).toBe(true);
    expect(body.days[0].APPROVE + body.days[0].DECLINE + body.days[0].REVIEW).toBe(2);
    expect(body.days[1]).toMatchObject({ APPROVE: 0, DECLINE: 0, REVIEW: 1 });
    expect(body.scoreBands.reduce((a: number, b: number) => a + b, 0)).toBe(decidedIn(body.days));
    expect(body.topReasons).toContainEqual({ reason: 'review_all_returns', count: 1 });
    expect(body.openReviews).toBe(1);
    // Read again, by this feed or by a restarted one reading from the stream's start, the stream's
    // changes are not counted twice.
    await feed();
    await overviewFeed()();
    expect((await overview(key, `?from=${day(0)}&to=${day(0)}`)).days).toEqual(body.days);

    expectError(
      await suite.api.request('GET', '/v1/overview?from=yesterday', { apiKey: key }),
      422,
      'unprocessable_entity',
      'from',
    );
    const longAgo = day(OVERVIEW_LIMITS.days);
    expect((await overview(key, `?from=${longAgo}`)).from).toBe(day(OVERVIEW_LIMITS.days - 1));
  });

  it("keeps where `npm start`'s feed read in a file: restarted, it reads on from there, not from the stream's start", async () => {
    const { apiKey } = await newMerchant();
    await placeOrder(suite.api, apiKey);
    const file = join(mkdtempSync(join(tmpdir(), 'overview-stream-')), 'overview-stream.json');
    // The first pass reads the suite's whole stream; restarted after one more order, it reads that
    // order's changes, not the stream again.
    const first = await overviewFeed(undefined, file)();
    await placeOrder(suite.api, apiKey);
    const restarted = await overviewFeed(undefined, file)();
    expect(restarted).toBeGreaterThan(0);
    expect(restarted * 3).toBeLessThan(first);
    expect(await overviewFeed()()).toBeGreaterThanOrEqual(first + restarted);
  });

  it('shows earlier days from the nightly rollups, and a day the rollup has not counted from the counters', async () => {
    const { merchantId, apiKey } = await newMerchant();
    const key = await consoleKey(merchantId);
    await placeOrder(suite.api, apiKey);
    await saveOverviewRollups(merchantId, 'return', [
      {
        day: day(2),
        cells: [
          ['DECLINE', 9, 'rollup_branch', 5000],
          ['APPROVE', 0, 'default_approve', 7],
        ],
      },
    ]);
    // Yesterday's decisions, counted by the stream; its nightly rollup has not landed yet.
    const yesterday = (n: number, decision: string) => ({
      shardId: 'shard-test',
      sequenceNumber: String(n),
      eventName: 'INSERT',
      newImage: marshall({
        merchantId,
        entity: 'return',
        createdAt: `${day(1)}T12:00:00.000Z`,
        decision: { decision, abuseScore: 45, subDecision: 'counted_branch' },
      }),
    });
    await feedOverviewCounters([yesterday(1, 'REVIEW'), yesterday(2, 'REVIEW'), yesterday(3, 'APPROVE')]);
    await feed();

    const today = await overview(key, `?from=${day(0)}`);
    const body = await overview(key, `?from=${day(2)}`);
    const returns = body.days.filter((d: { eventType: string }) => d.eventType === 'return');
    expect(returns).toEqual([
      { day: day(2), eventType: 'return', APPROVE: 7, DECLINE: 5000, REVIEW: 0 },
      { day: day(1), eventType: 'return', APPROVE: 1, DECLINE: 0, REVIEW: 2 },
    ]);
    expect(body.days.filter((d: { eventType: string }) => d.eventType === 'order')).toEqual(today.days);
    expect(body.scoreBands[9] - today.scoreBands[9]).toBe(5000);
    expect(body.scoreBands[4] - today.scoreBands[4]).toBe(3);
    expect(body.topReasons[0]).toEqual({ reason: 'rollup_branch', count: 5000 });

    // Once the nightly rollup counts yesterday, it replaces the counters.
    await saveOverviewRollups(merchantId, 'return', [
      { day: day(1), cells: [['REVIEW', 4, 'rollup_branch', 30]] },
    ]);
    const rolledUp = (await overview(key, `?from=${day(1)}&to=${day(1)}`)).days;
    expect(rolledUp).toEqual([{ day: day(1), eventType: 'return', APPROVE: 0, DECLINE: 0, REVIEW: 30 }]);
    const reversed = await overview(key, `?from=${day(1)}&to=${day(2)}`);
    expect(reversed.days).toEqual([]);
  });

  it('reads the same number of items for a merchant of 3 orders today as for one of 600', async () => {
    const midnight = Date.parse(`${day(0)}T00:00:00.000Z`);
    const small = await merchantWithOrders(3, midnight, (await newMerchant()).merchantId);
    const large = await merchantWithOrders(600, midnight, (await newMerchant()).merchantId);
    await feed();
    const read = async (merchantId: string) => {
      const key = await consoleKey(merchantId);
      // Signed in once first, so both answers read only what the overview itself reads.
      await overview(key, `?from=${day(0)}`);
      const before = itemsRead;
      const body = await overview(key, `?from=${day(0)}`);
      return { body, itemsRead: itemsRead - before };
    };
    const few = await read(small.merchantId);
    const many = await read(large.merchantId);
    expect(decidedIn(few.body.days)).toBe(3);
    expect(decidedIn(many.body.days)).toBe(600);
    expect(many.itemsRead).toBe(few.itemsRead);
    expect(many.itemsRead).toBeLessThanOrEqual(5);
  });
});
