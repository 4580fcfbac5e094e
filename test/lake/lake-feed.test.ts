import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { beforeAll, describe, expect, it, vi } from 'vitest';

// A table of its own: the feed reads the table's whole stream, which then holds this suite's writes
// alone, not every other suite's meanwhile.
vi.hoisted(() => {
  process.env.TABLE_NAME = `lake-feed-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});

const { feedLakeOnce, startLakeAtStreamEnd } = await import('../../local/lake-poller.ts');
const { identityId } = await import('../../shared/identity/identity-ids.ts');
const { openLocalLake } = await import('../../shared/lake/local-lake.ts');
const { newMerchant, withOwnTableApi } = await import('../support/api.ts');
const { disputeEntry, emailOf, itemDisposition, returnBody, storedRef } = await import(
  '../support/commerce.ts'
);
const { orderBody } = await import('../support/fixtures.ts');

/**
 * The local lake is fed from DynamoDB Local's stream: what the API recorded reaches the Parquet files
 * in the lake's layout, as it stands after each change, digests only.
 */
const suite = withOwnTableApi(undefined, { stream: true });
let dir: string;
let lake: DuckDBConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lake-feed-'));
  lake = await openLocalLake(dir);
});

async function rows(sql: string, ...values: string[]) {
  return (await lake.runAndReadAll(sql, values)).getRowObjectsJson();
}

describe('the local lake feed', () => {
  it('copies decided orders, a dispute as it stands and dispositions, partitioned by kind, merchant and day', async () => {
    const { merchantId, apiKey } = await newMerchant();
    const at = Date.parse('2026-10-01T12:00:00.000Z');
    const orders = [orderBody({ timestamp: at }), orderBody({ timestamp: at + 86_400_000 })];
    const answers = [];
    for (const order of orders) {
      const answer = await suite.api.post('/v1/order', order, { apiKey });
      expect(answer.status).toBe(200);
      answers.push(answer.body.cartLevelDecisions[0].decisions[0]);
    }
    const dispute = disputeEntry({ disputeStatus: 'OPEN', timestamp: at + 5 * 86_400_000 });
    const disputed = `/v1/order/dispute/${orders[0]!.providerOrderId}`;
    expect((await suite.api.post(disputed, { dispute: [dispute] }, { apiKey })).status).toBe(200);
    const returned = returnBody(orders[1]!, { timestamp: at + 2 * 86_400_000 });
    expect((await suite.api.post('/v1/return', returned, { apiKey })).status).toBe(200);
    const disposition = {
      itemDispositions: [itemDisposition(orders[1]!, 0, 'EMPTY_BOX', 'REMOVE_SUSPECT_ABUSE')],
    };
    const disposed = `/v1/return/disposition/${returned.providerReturnId}`;
    expect((await suite.api.post(disposed, disposition, { apiKey })).status).toBe(200);

    await feedLakeOnce(lake, dir);
    const events = await rows(
      `SELECT event_id, event_at, day, decision, abuse_score, identities FROM decided_events
       WHERE merchant_id = $1 AND kind = 'order' ORDER BY event_at`,
      merchantId,
    );
    expect(events.map((e) => e.event_id)).toEqual(orders.map((o) => o.providerOrderId));
    expect(events.map((e) => Number(e.event_at))).toEqual([at, at + 86_400_000]);
    expect(events.map((e) => e.day)).toEqual(['2026-10-01', '2026-10-02']);
    expect(events.map((e) => [e.decision, e.abuse_score])).toEqual(
      answers.map((d) => [d.decision, d.abuseScore]),
    );
    expect(events[0]!.identities).toContain(identityId(await storedRef(merchantId, emailOf(orders[0]!))));
    expect(
      existsSync(join(dir, 'decided_events', 'kind=order', `merchant_id=${merchantId}`, 'day=2026-10-01')),
    ).toBe(true);

    // The dispute is won later: the lake keeps both rows, its latest revision is the dispute as it stands.
    const won = { ...dispute, disputeStatus: 'WON', timestamp: at + 9 * 86_400_000 };
    expect((await suite.api.post(disputed, { dispute: [won] }, { apiKey })).status).toBe(200);
    await feedLakeOnce(lake, dir);
    const disputes = await rows(
      `SELECT dispute_status FROM feedback WHERE merchant_id = $1 AND kind = 'dispute'
       QUALIFY row_number() OVER (PARTITION BY feedback_id ORDER BY revision DESC, changed_at DESC) = 1`,
      merchantId,
    );
    expect(disputes).toEqual([{ dispute_status: 'WON' }]);
    const lines = await rows(
      `SELECT return_id, line, item_condition, disposition_outcome FROM feedback
       WHERE merchant_id = $1 AND kind = 'disposition'`,
      merchantId,
    );
    expect(lines).toEqual([
      {
        return_id: returned.providerReturnId,
        line: 0,
        item_condition: 'EMPTY_BOX',
        disposition_outcome: 'REMOVE_SUSPECT_ABUSE',
      },
    ]);
  });

  it('holds digests, never the e-mail address, card or name the merchant sent', async () => {
    const { merchantId, apiKey } = await newMerchant();
    const order = orderBody();
    expect((await suite.api.post('/v1/order', order, { apiKey })).status).toBe(200);
    await feedLakeOnce(lake, dir);
    const email = String(order.customer.contactInformation[0]!.address);
    const texts = await rows(
      `SELECT to_json(d)::VARCHAR AS row FROM decided_events d WHERE merchant_id = $1
       UNION ALL SELECT to_json(l)::VARCHAR FROM list_changes l WHERE merchant_id = $1`,
      merchantId,
    );
    expect(texts.length).toBeGreaterThan(0);
    for (const { row } of texts) expect(String(row).toLowerCase()).not.toContain(email.toLowerCase());
  });

  it('reads each change once: passes after it copy none of it again', async () => {
    const { merchantId, apiKey } = await newMerchant();
    for (let i = 0; i < 3; i++)
      expect((await suite.api.post('/v1/order', orderBody(), { apiKey })).status).toBe(200);
    await feedLakeOnce(lake, dir);
    await feedLakeOnce(lake, dir);
    await feedLakeOnce(lake, dir);
    expect(
      await rows(
        `SELECT count(*)::INTEGER AS copies, count(DISTINCT event_key)::INTEGER AS orders FROM decided_events
         WHERE merchant_id = $1`,
        merchantId,
      ),
    ).toEqual([{ copies: 3, orders: 3 }]);
  });

  it("a lake started at the stream's end after another holds only the changes after it", async () => {
    const earlier = await newMerchant();
    expect((await suite.api.post('/v1/order', orderBody(), { apiKey: earlier.apiKey })).status).toBe(200);
    await feedLakeOnce(lake, dir);
    const before = await newMerchant();
    expect((await suite.api.post('/v1/order', orderBody(), { apiKey: before.apiKey })).status).toBe(200);

    const nextDir = mkdtempSync(join(tmpdir(), 'lake-feed-next-'));
    await startLakeAtStreamEnd(nextDir, dir);
    const later = await newMerchant();
    expect((await suite.api.post('/v1/order', orderBody(), { apiKey: later.apiKey })).status).toBe(200);
    const next = await openLocalLake(nextDir);
    await feedLakeOnce(next, nextDir);
    const merchants = (
      await next.runAndReadAll('SELECT DISTINCT merchant_id FROM decided_events')
    ).getRowObjectsJson();
    expect(merchants).toEqual([{ merchant_id: later.merchantId }]);
    next.closeSync();
  });
});
