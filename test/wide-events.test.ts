import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { identityDigests } from '../shared/digests/identity-digests.ts';
import { identitiesOfOrder } from '../shared/identity/order-identities.ts';
import { derivedEntryId } from '../shared/lists/entries.ts';
import type { OrderRequest } from '../shared/schemas/order.ts';
import { batchGetItems } from '../shared/store/batch-get.ts';
import type { StoredDispositions } from '../shared/store/dispositions.ts';
import { identityKey } from '../shared/store/identity-history.ts';
import { keys, listKeys } from '../shared/store/keys.ts';
import { markersOf } from '../shared/store/list-markers.ts';
import { expectError, newMerchant, withTestApi } from './support/api.ts';
import type { OrderBody } from './support/commerce.ts';
import { consoleKey, reviewEveryReturn, saveWorkflow } from './support/console.ts';
import { clearFaults, injectFault } from './support/faults.ts';
import { createOwnTable, dropOwnTable } from './support/table-snapshot.ts';
import {
  STORABLE_REASON_LENGTH,
  widestAccountUpdate,
  widestDisposition,
  widestDispute,
  widestLogin,
  widestOrder,
  widestReturn,
  widestSignup,
} from './support/widest-events.ts';

/**
 * The widest event the schemas allow, on every endpoint, through HTTP on DynamoDB Local: each is
 * answered 2xx, or 4xx naming the problem, never 500 (issue 34). The feedback ones put more on the
 * lists than one transaction takes, so their list changes are written in steps before the answer.
 */
// A table of its own: DynamoDB Local slows as a table grows, and the shared one holds the whole run
// by the time this suite runs.
vi.hoisted(() => {
  process.env.TABLE_NAME = `wide-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});
beforeAll(() => createOwnTable());
afterAll(() => dropOwnTable());
const suite = withTestApi({ accountUpdatesEnabled: true });
afterEach(clearFaults);

/** The order's identities as the suite's merchant stores them. */
const orderRefs = async (order: OrderBody, merchantId = suite.merchantId) =>
  identitiesOfOrder(order as unknown as OrderRequest, await identityDigests(merchantId));

async function placeWidestOrder(): Promise<OrderBody> {
  const order = widestOrder();
  const response = await suite.api.post('/v1/order', order, { apiKey: suite.apiKey });
  expect(response.status).toBe(200);
  return order;
}

async function itemsOf(keyList: { PK: string; SK: string }[]) {
  return [...(await batchGetItems(keyList)).values()];
}

describe('the widest events', () => {
  it('order: 20 contacts, 20 devices, 20 cards, 250 lines at the body limit, every identity counted', async () => {
    const order = widestOrder();
    expect(Buffer.byteLength(JSON.stringify(order))).toBeGreaterThan(250 * 1024);
    const response = await suite.api.post('/v1/order', order, { apiKey: suite.apiKey });
    expect(response.status).toBe(200);
    const refs = (await orderRefs(order)).all;
    expect(refs).toHaveLength(60);
    const items = await itemsOf(refs.map((ref) => identityKey(suite.merchantId, ref)));
    expect(items.filter((item) => item.c_ord === 1)).toHaveLength(refs.length);
  });

  it('dispute: 100 lost fraud chargebacks block every card and watch every device, address and phone', async () => {
    const order = await placeWidestOrder();
    const body = widestDispute();
    const path = `/v1/order/dispute/${encodeURIComponent(order.providerOrderId)}`;
    const response = await suite.api.post(path, body, { apiKey: suite.apiKey });
    expect(response.status, response.text).toBe(200);
    expect(response.body.disputesRecorded).toBe(100);

    const { cards, devices, phones, billingAddresses, shippingAddresses, emails } = await orderRefs(order);
    const watched = [...devices, ...phones, ...billingAddresses, ...shippingAddresses];
    const entryKeys = body.dispute.flatMap(({ disputeId }) => [
      ...cards.map((ref) =>
        listKeys.entry(suite.merchantId, derivedEntryId(`dispute:${disputeId}`, 'block', ref)),
      ),
      ...watched.map((ref) =>
        listKeys.entry(suite.merchantId, derivedEntryId(`dispute:${disputeId}`, 'watch', ref)),
      ),
    ]);
    expect(await itemsOf(entryKeys)).toHaveLength(100 * (cards.length + watched.length));
    // Every identity carries the markers that fit (the newest), the e-mails none.
    const identities = await itemsOf(
      [...cards, ...watched, ...emails].map((ref) => identityKey(suite.merchantId, ref)),
    );
    const marked = identities.filter((item) => markersOf(item).length > 0);
    expect(marked).toHaveLength(cards.length + watched.length);
    for (const item of marked) {
      const lists = new Set(markersOf(item).map((marker) => marker.list));
      expect(lists).toEqual(new Set([item.kind === 'card' ? 'block' : 'watch']));
    }
    // Each dispute records the entries it holds, so a WON takes off exactly those.
    const disputes = await itemsOf(
      body.dispute.map(({ disputeId }) => keys.dispute(suite.merchantId, disputeId)),
    );
    for (const dispute of disputes) {
      expect((dispute.applied as { listed: unknown[] }).listed).toHaveLength(cards.length + watched.length);
    }

    const again = await suite.api.post(path, body, { apiKey: suite.apiKey });
    expect(again.status).toBe(200);
    const [first] = body.dispute;
    const won = await suite.api.post(
      path,
      { dispute: [{ ...first, disputeStatus: 'WON', timestamp: first!.timestamp + 1_000 }] },
      { apiKey: suite.apiKey },
    );
    expect(won.status).toBe(200);
    const firstEntries = entryKeys.slice(0, cards.length + watched.length);
    expect(await itemsOf(firstEntries)).toHaveLength(0);
  });

  it('return: 250 lines with reasons up to the body limit are recorded (the text lives apart from the record)', async () => {
    const order = await placeWidestOrder();
    // Before free text had its own item, this return's record passed DynamoDB's 400 KB: 413.
    const widest = widestReturn(order);
    const response = await suite.api.post('/v1/return', widest, { apiKey: suite.apiKey });
    expect(response.status).toBe(200);
    expect(response.body.returnedLineItems).toHaveLength(250);
  });

  it('disposition: 250 empty boxes watch the return’s identities, in steps that a retry completes', async () => {
    const order = await placeWidestOrder();
    const ret = widestReturn(order, { reasonLength: STORABLE_REASON_LENGTH });
    expect((await suite.api.post('/v1/return', ret, { apiKey: suite.apiKey })).status).toBe(200);
    const path = `/v1/return/disposition/${encodeURIComponent(ret.providerReturnId)}`;
    const body = widestDisposition(order);
    expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(250 * 1024);

    // The third transaction fails for good: the steps before it stay, the record is not written.
    injectFault('TransactWriteItemsCommand', () => new Error('injected failure'), { skip: 2 });
    expectError(await suite.api.post(path, body, { apiKey: suite.apiKey }), 500, 'internal_error');
    const dispositionsKey = keys.returnDispositions(suite.merchantId, ret.providerReturnId);
    expect(await itemsOf([dispositionsKey])).toHaveLength(0);

    // The client's retry writes what is missing and adopts what the first try wrote.
    const response = await suite.api.post(path, body, { apiKey: suite.apiKey });
    expect(response.status).toBe(200);
    expect(response.body.dispositionsRecorded).toBe(250);
    const { emails, cards, devices, billingAddresses, shippingAddresses } = await orderRefs(order);
    const orderWatched = [...emails, ...cards, ...devices, ...billingAddresses, ...shippingAddresses];
    const [record] = (await itemsOf([dispositionsKey])) as unknown as StoredDispositions[];
    // The order's watched identities and the return's own 20 devices.
    expect(record!.listed).toHaveLength(orderWatched.length + 20);
    const entries = await itemsOf(
      record!.listed!.map(({ entryId }) => listKeys.entry(suite.merchantId, entryId)),
    );
    expect(entries).toHaveLength(record!.listed!.length);
    const identities = await itemsOf(orderWatched.map((ref) => identityKey(suite.merchantId, ref)));
    expect(identities.filter((item) => markersOf(item).some((m) => m.list === 'watch'))).toHaveLength(
      orderWatched.length,
    );
    expect(identities.filter((item) => item.c_abr === 250)).toHaveLength(orderWatched.length);
  });

  it('review: resolving the widest return’s review as abuse watches its e-mails, cards, devices and addresses', async () => {
    const merchant = await newMerchant();
    const key = await consoleKey(merchant.merchantId);
    expect((await saveWorkflow(suite.api, key, 'return', reviewEveryReturn)).status).toBe(200);
    const order = widestOrder();
    expect((await suite.api.post('/v1/order', order, { apiKey: merchant.apiKey })).status).toBe(200);
    const ret = widestReturn(order, { reasonLength: STORABLE_REASON_LENGTH });
    expect((await suite.api.post('/v1/return', ret, { apiKey: merchant.apiKey })).status).toBe(200);
    const queue = await suite.api.request('GET', '/v1/reviews?eventType=return', { apiKey: key });
    const [review] = queue.body.items as { reviewId: string }[];
    const resolved = await suite.api.request('POST', `/v1/reviews/${review!.reviewId}/resolve`, {
      apiKey: key,
      rawBody: JSON.stringify({ outcome: 'abuse' }),
    });
    expect(resolved.status).toBe(200);
    const { emails, cards, devices, billingAddresses, shippingAddresses } = await orderRefs(
      order,
      merchant.merchantId,
    );
    const watched = [...emails, ...cards, ...devices, ...billingAddresses, ...shippingAddresses];
    const identities = await itemsOf(watched.map((ref) => identityKey(merchant.merchantId, ref)));
    expect(identities.filter((item) => markersOf(item).some((m) => m.note.cause === 'review'))).toHaveLength(
      watched.length,
    );
  });

  it('signup, login and account update: every list at its bound', async () => {
    const calls: [string, unknown][] = [
      ['/v1/evaluate/signup', widestSignup()],
      ['/v1/evaluate/login', widestLogin()],
      ['/v1/evaluate/account', widestAccountUpdate()],
    ];
    for (const [path, body] of calls) {
      const response = await suite.api.post(path, body, { apiKey: suite.apiKey });
      expect(response.status, `${path}: ${response.text}`).toBe(200);
    }
  });
});
