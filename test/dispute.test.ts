import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchGetItems } from '../shared/store/batch-get.ts';
import type { StoredDispute } from '../shared/store/disputes.ts';
import { keys } from '../shared/store/keys.ts';
import { expectError, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import {
  cardOf,
  countersOf,
  deviceOf,
  disputeEntry,
  emailOf,
  merchantIdOf,
  type OrderBody,
  placeOrder,
  returnBody,
} from './support/commerce.ts';
import { orderBody, uid } from './support/fixtures.ts';
import { measureRoundTrips } from './support/round-trips.ts';

let api: TestApi;
let apiKey: string;
let merchantId: string;

beforeAll(async () => {
  api = await startTestApi();
  apiKey = (await newMerchant()).apiKey;
  merchantId = await merchantIdOf(apiKey);
});
afterAll(() => api.close());

const DAY_MS = 86_400_000;

const report = (providerOrderId: string, dispute: unknown[], key = apiKey) =>
  api.post(`/v1/order/dispute/${encodeURIComponent(providerOrderId)}`, { dispute }, { apiKey: key });

async function storedDispute(disputeId: string): Promise<StoredDispute | undefined> {
  const [item] = [...(await batchGetItems([keys.dispute(merchantId, disputeId)])).values()];
  return item as StoredDispute | undefined;
}

const countersOfEmail = (order: OrderBody) => countersOf(merchantId, emailOf(order));

describe('POST /v1/order/dispute/{order-id}', () => {
  it('answers the 2.5 shape with the order’s ids', async () => {
    const order = orderBody();
    const placed = await api.post('/v1/order', order, { apiKey });
    const response = await report(order.providerOrderId, [disputeEntry()]);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      providerOrderId: order.providerOrderId,
      serviceOrderId: placed.body.serviceOrderID,
      disputesRecorded: 1,
    });
  });

  it('404 order_not_found for an unknown order and for another merchant’s order', async () => {
    const order = await placeOrder(api, apiKey);
    expectError(await report(uid('no-such-order'), [disputeEntry()]), 404, 'order_not_found');
    const other = (await newMerchant()).apiKey;
    expectError(await report(order.providerOrderId, [disputeEntry()], other), 404, 'order_not_found');
  });

  it('409 duplicate_dispute_id when the id belongs to a dispute on another order', async () => {
    const [first, second] = [await placeOrder(api, apiKey), await placeOrder(api, apiKey)];
    const entry = disputeEntry();
    expect((await report(first.providerOrderId, [entry])).status).toBe(200);
    const clash = await report(second.providerOrderId, [disputeEntry(), { ...entry, disputeStatus: 'LOST' }]);
    expectError(clash, 409, 'duplicate_dispute_id', 'dispute[1].disputeId');
    expect((await storedDispute(entry.disputeId))?.current.disputeStatus).toBe('OPEN');
  });

  const invalid: [string, (e: ReturnType<typeof disputeEntry>) => unknown, number, string, string][] = [
    [
      'unknown type',
      (e) => ({ ...e, disputeType: 'REFUND' }),
      422,
      'unknown_enum_value',
      'dispute[0].disputeType',
    ],
    [
      'unknown status',
      (e) => ({ ...e, disputeStatus: 'CLOSED' }),
      422,
      'unknown_enum_value',
      'dispute[0].disputeStatus',
    ],
    [
      'status of the wrong JSON type',
      (e) => ({ ...e, disputeStatus: 1 }),
      422,
      'unknown_enum_value',
      'dispute[0].disputeStatus',
    ],
    [
      'timestamp as a string',
      (e) => ({ ...e, timestamp: String(e.timestamp) }),
      422,
      'invalid_timestamp',
      'dispute[0].timestamp',
    ],
    [
      'timestamp in seconds',
      (e) => ({ ...e, timestamp: Math.floor(e.timestamp / 1000) }),
      422,
      'invalid_timestamp',
      'dispute[0].timestamp',
    ],
    [
      'amount as a string',
      (e) => ({ ...e, disputeAmount: '10.00' }),
      400,
      'invalid_request',
      'dispute[0].disputeAmount',
    ],
    [
      'negative amount',
      (e) => ({ ...e, disputeAmount: -1 }),
      422,
      'unprocessable_entity',
      'dispute[0].disputeAmount',
    ],
    ['missing disputeId', ({ disputeId: _, ...e }) => e, 400, 'invalid_request', 'dispute[0].disputeId'],
    ['unknown field', (e) => ({ ...e, network: 'VISA' }), 422, 'unknown_field', 'dispute[0].network'],
  ];
  for (const [name, mutate, status, code, field] of invalid) {
    it(`${name} -> ${status} ${code}`, async () => {
      const order = await placeOrder(api, apiKey);
      expectError(await report(order.providerOrderId, [mutate(disputeEntry())]), status, code, field);
    });
  }

  it('400 invalid_request without the dispute array; 422 over 100 entries', async () => {
    const order = await placeOrder(api, apiKey);
    expectError(
      await api.post(`/v1/order/dispute/${order.providerOrderId}`, {}, { apiKey }),
      400,
      'invalid_request',
      'dispute',
    );
    const entry = disputeEntry();
    expectError(
      await report(order.providerOrderId, Array(101).fill(entry)),
      422,
      'unprocessable_entity',
      'dispute',
    );
  });
});

describe('dispute state (docs/decisions.md)', () => {
  it('OPEN -> RESPONDED -> LOST -> WON moves open disputes and lost chargebacks exactly', async () => {
    const order = await placeOrder(api, apiKey, { amount: '80.00' });
    const t0 = Date.now() - 60_000;
    const entry = disputeEntry({ disputeAmount: 80, timestamp: t0 });
    await report(order.providerOrderId, [entry]);
    expect(await countersOfEmail(order)).toMatchObject({ c_dsO: 1 });
    await report(order.providerOrderId, [{ ...entry, disputeStatus: 'RESPONDED', timestamp: t0 + 1 }]);
    expect(await countersOfEmail(order)).toMatchObject({ c_dsO: 1 });
    await report(order.providerOrderId, [{ ...entry, disputeStatus: 'LOST', timestamp: t0 + 2 }]);
    for (const ref of [emailOf(order), cardOf(order), deviceOf(order)]) {
      expect(await countersOf(merchantId, ref)).toMatchObject({ c_dsO: 0, c_cbL: 1, c_cbLV: 80 });
    }
    await report(order.providerOrderId, [{ ...entry, disputeStatus: 'WON', timestamp: t0 + 3 }]);
    expect(await countersOfEmail(order)).toMatchObject({ c_dsO: 0, c_cbL: 0, c_cbLV: 0 });
  });

  it('keeps an older update in the history without changing the state; an identical re-send changes nothing', async () => {
    const order = await placeOrder(api, apiKey);
    const t0 = Date.now() - 60_000;
    const lost = disputeEntry({ disputeStatus: 'LOST', timestamp: t0 });
    await report(order.providerOrderId, [lost]);
    // A late OPEN from before the outcome: recorded, but LOST stays.
    await report(order.providerOrderId, [{ ...lost, disputeStatus: 'OPEN', timestamp: t0 - 1_000 }]);
    const stored = await storedDispute(lost.disputeId);
    expect(stored?.current.disputeStatus).toBe('LOST');
    expect(stored?.history.map((e) => e.disputeStatus)).toEqual(['OPEN', 'LOST']);
    expect(await countersOfEmail(order)).toMatchObject({ c_cbL: 1 });
    expect((await countersOfEmail(order)).c_dsO ?? 0).toBe(0);

    const version = stored?.version;
    expect((await report(order.providerOrderId, [lost])).status).toBe(200);
    expect((await storedDispute(lost.disputeId))?.version).toBe(version);
    expect(await countersOfEmail(order)).toMatchObject({ c_cbL: 1 });
  });

  it('applies several entries of one dispute in one call in timestamp order', async () => {
    const order = await placeOrder(api, apiKey);
    const t0 = Date.now() - 60_000;
    const entry = disputeEntry({ timestamp: t0 });
    const response = await report(order.providerOrderId, [
      { ...entry, disputeStatus: 'WON', timestamp: t0 + 2 },
      { ...entry, disputeStatus: 'OPEN', timestamp: t0 },
      { ...entry, disputeStatus: 'RESPONDED', timestamp: t0 + 1 },
    ]);
    expect(response.body.disputesRecorded).toBe(3);
    const stored = await storedDispute(entry.disputeId);
    expect(stored?.current.disputeStatus).toBe('WON');
    expect(stored?.history.map((e) => e.disputeStatus)).toEqual(['OPEN', 'RESPONDED', 'WON']);
    expect((await countersOfEmail(order)).c_dsO ?? 0).toBe(0);
  });

  it('back-fills 100 historical entries for one order in one call', async () => {
    const order = await placeOrder(api, apiKey);
    const t0 = Date.now() - 200 * DAY_MS;
    const ids = Array.from({ length: 4 }, () => uid('dispute'));
    const statuses = ['OPEN', 'RESPONDED', 'LOST', 'WON'];
    // 4 disputes x 25 events; dispute i ends in statuses[i] (its latest event).
    const entries = Array.from({ length: 100 }, (_, n) => {
      const i = n % 4;
      const step = Math.floor(n / 4);
      return disputeEntry({
        disputeId: ids[i]!,
        disputeStatus: step === 24 ? statuses[i]! : 'RESPONDED',
        disputeAmount: 25,
        timestamp: t0 + step * DAY_MS,
      });
    });
    const response = await report(order.providerOrderId, entries);
    expect(response.status).toBe(200);
    expect(response.body.disputesRecorded).toBe(100);
    for (const [i, id] of ids.entries()) {
      const stored = await storedDispute(id);
      expect(stored?.current.disputeStatus).toBe(statuses[i]);
      expect(stored?.history).toHaveLength(25);
    }
    expect(await countersOfEmail(order)).toMatchObject({ c_dsO: 2, c_cbL: 1, c_cbLV: 25 });
  });

  it('records nothing when one entry of a batch is bad', async () => {
    const order = await placeOrder(api, apiKey);
    const entries = Array.from({ length: 99 }, () => disputeEntry({ disputeStatus: 'LOST' }));
    const bad = disputeEntry({ disputeStatus: 'CLOSED' });
    expectError(
      await report(order.providerOrderId, [...entries, bad]),
      422,
      'unknown_enum_value',
      'dispute[99].disputeStatus',
    );
    expect(await storedDispute(entries[0]!.disputeId)).toBeUndefined();
    expect((await countersOfEmail(order)).c_cbL ?? 0).toBe(0);
  });

  it('records 100 distinct disputes for one order in one call, each with its counter moves', async () => {
    const order = await placeOrder(api, apiKey);
    // 100 distinct disputes that each move counters: 100 records + the order's identities > 100 writes,
    // so the batch is split into transactions of whole disputes.
    const entries = Array.from({ length: 100 }, (_, n) =>
      disputeEntry({ disputeStatus: n < 10 ? 'LOST' : 'OPEN', disputeAmount: 10 }),
    );
    const response = await report(order.providerOrderId, entries);
    expect(response.status).toBe(200);
    expect(response.body.disputesRecorded).toBe(100);
    for (const entry of [entries[0]!, entries[99]!])
      expect(await storedDispute(entry.disputeId)).toBeDefined();
    expect(await countersOfEmail(order)).toMatchObject({ c_dsO: 90, c_cbL: 10, c_cbLV: 100 });
    const again = await report(order.providerOrderId, entries);
    expect(again.status).toBe(200);
    expect(await countersOfEmail(order)).toMatchObject({ c_dsO: 90, c_cbL: 10, c_cbLV: 100 });
  });

  it('moves the counters once when the same update is sent 10 times at once', async () => {
    const order = await placeOrder(api, apiKey);
    const entry = disputeEntry({ disputeStatus: 'LOST', disputeAmount: 12.5 });
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => report(order.providerOrderId, [entry])),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    for (const ref of [emailOf(order), cardOf(order)]) {
      expect(await countersOf(merchantId, ref)).toMatchObject({ c_cbL: 1, c_cbLV: 12.5 });
    }
    expect((await storedDispute(entry.disputeId))?.version).toBe(1);
  });

  it('uses at most 3 sequential DynamoDB round trips for a single entry on the warm path (measured: 2; 3 for a lost fraud chargeback, whose list entries read their identities; the rate-limit token rides with the read)', async () => {
    const order = await placeOrder(api, apiKey);
    const measured = await measureRoundTrips(() =>
      report(order.providerOrderId, [disputeEntry({ disputeStatus: 'LOST', disputeReason: 'INR' })]),
    );
    expect(measured.response.status).toBe(200);
    expect(measured.report).toEqual({
      own: ['BatchGetItemCommand', 'TransactWriteItemsCommand'],
      rateLimitTokens: 1,
      sequential: 2,
    });
    const fraud = await placeOrder(api, apiKey);
    const listed = await measureRoundTrips(() =>
      report(fraud.providerOrderId, [disputeEntry({ disputeStatus: 'LOST', disputeReason: 'FRAUD' })]),
    );
    expect(listed.response.status).toBe(200);
    expect(listed.report).toEqual({
      own: ['BatchGetItemCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand'],
      rateLimitTokens: 1,
      sequential: 3,
    });
  });
});

describe('disputes feed scoring', () => {
  it('LOST raises the next order sharing the e-mail; WON brings it back to where it was', async () => {
    const email = `${uid('cb')}@example.com`;
    const day = (n: number) => Date.now() - n * DAY_MS; // past days: out of the 1-hour velocity window
    const disputed = await placeOrder(api, apiKey, { email, timestamp: day(10) });
    const score = async (n: number) => {
      const response = await api.post('/v1/order', orderBody({ email, timestamp: day(n) }), { apiKey });
      return response.body.cartLevelDecisions[0].decisions[0];
    };
    const baseline = await score(9);
    const entry = disputeEntry({ disputeStatus: 'LOST', disputeAmount: 49.99, timestamp: day(5) });
    await report(disputed.providerOrderId, [entry]);
    const afterLost = await score(8);
    expect(afterLost.abuseScore).toBeGreaterThan(baseline.abuseScore);
    expect(afterLost.decisionReason).toContain('1 lost chargeback on this');
    await report(disputed.providerOrderId, [{ ...entry, disputeStatus: 'WON', timestamp: day(4) }]);
    const afterWon = await score(7);
    expect(afterWon.abuseScore).toBe(baseline.abuseScore);
  });

  it('a dispute lost over the goods (not received) is no fraud chargeback; recoded as fraud, it is', async () => {
    const email = `${uid('inr')}@example.com`;
    const day = (n: number) => Date.now() - n * DAY_MS;
    const disputed = await placeOrder(api, apiKey, { email, timestamp: day(10) });
    const score = async (n: number) => {
      const response = await api.post('/v1/order', orderBody({ email, timestamp: day(n) }), { apiKey });
      return response.body.cartLevelDecisions[0].decisions[0];
    };
    const baseline = await score(9);
    const entry = disputeEntry({ disputeStatus: 'LOST', disputeReason: 'INR', timestamp: day(5) });
    await report(disputed.providerOrderId, [entry]);
    const afterService = await score(8);
    expect(afterService.abuseScore).toBe(baseline.abuseScore);
    expect(afterService.decisionReason).not.toContain('lost chargeback');
    // The same dispute, its reason corrected to fraud by a later event: now it counts.
    await report(disputed.providerOrderId, [{ ...entry, disputeReason: 'FRAUD', timestamp: day(4) }]);
    const afterFraud = await score(7);
    expect(afterFraud.abuseScore).toBeGreaterThan(baseline.abuseScore);
    expect(afterFraud.decisionReason).toContain('1 lost chargeback on this');
  });

  it('LOST raises the next return sharing the card or device; WON brings it back down', async () => {
    const disputed = await placeOrder(api, apiKey);
    const card = disputed.paymentInfo[0]!;
    const sharing = async (share: 'card' | 'device') => {
      const order = await placeOrder(api, apiKey, {
        ...(share === 'card'
          ? { card: { BIN: card.BIN, last4: card.last4, expiry: card.expiry } }
          : { device: disputed.deviceFingerprints[0]!.deviceIdentifier }),
      });
      const response = await api.post('/v1/return', returnBody(order), { apiKey });
      return response.body.returnedLineItems[0].abuseScore as number;
    };
    const before = { card: await sharing('card'), device: await sharing('device') };
    const entry = disputeEntry({ disputeStatus: 'LOST' });
    await report(disputed.providerOrderId, [entry]);
    const lost = { card: await sharing('card'), device: await sharing('device') };
    expect(lost.card).toBeGreaterThan(before.card);
    expect(lost.device).toBeGreaterThan(before.device);
    await report(disputed.providerOrderId, [
      { ...entry, disputeStatus: 'WON', timestamp: entry.timestamp + 1 },
    ]);
    const won = { card: await sharing('card'), device: await sharing('device') };
    expect(won.card).toBeLessThan(lost.card);
    expect(won.device).toBeLessThan(lost.device);
  });
});
