import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../shared/console/dispositions-upload.ts';
import { MANAGEMENT_ENDPOINT_DEFINITIONS } from '../shared/contract/management-endpoints.ts';
import { networkKeyOf } from '../shared/network/network-key.ts';
import { readNetworkSecret } from '../shared/network/network-secret.ts';
import { networkKeys } from '../shared/store/keys.ts';
import { getRecord } from '../shared/store/record-once.ts';
import { drainNetworkQueue } from '../shared/use-cases/network-worker.ts';
import { runUploadWorker } from '../shared/use-cases/record-upload.ts';
import { admin } from './support/admin.ts';
import { expectError, newMerchant, type TestApi, waitForKeyCacheExpiry, withTestApi } from './support/api.ts';
import {
  cardOf as cardRefOf,
  deviceOf,
  disputeEntry,
  type OrderBody,
  placeOrder,
} from './support/commerce.ts';
import { consoleKey, orderAndReturn } from './support/console.ts';
import { orderBody, uid } from './support/fixtures.ts';
import { cardOf, orderDecision, reportDispute } from './support/lists.ts';

/**
 * The opt-in network through the local server and DynamoDB Local: membership set on the console,
 * members' lost fraud chargebacks reaching other members' decisions through the worker, counted
 * once, taken back by a WON dispute and by leaving; a non-member untouched; and what a member can
 * learn of others, probed as an attacker would.
 */
const suite = withTestApi();
type Merchant = Awaited<ReturnType<typeof newMerchant>>;

const network = (api: TestApi, key: string) => ({
  show: () => api.request('GET', '/v1/network', { apiKey: key }),
  save: (body: unknown) => api.request('PUT', '/v1/network', { apiKey: key, rawBody: JSON.stringify(body) }),
});

/** A fresh merchant, in the network or not, with its console key. */
async function merchant(member: boolean): Promise<Merchant & { console: string }> {
  const m = await newMerchant();
  const key = await consoleKey(m.merchantId);
  if (member) expect((await network(suite.api, key).save({ enabled: true })).status).toBe(200);
  return { ...m, console: key };
}

const reputationOf = async (ref: ReturnType<typeof cardRefOf>) =>
  getRecord<Record<string, unknown>>(networkKeys.reputation(networkKeyOf(await readNetworkSecret(), ref)));

const DAY = 86_400_000;
/**
 * The worker records members' sightings as of two days ago: a cause counts only on an identity the
 * merchant's sighting was recorded a day before (the service's clock, which tests cannot wait for).
 */
const drainSightedDaysAgo = () => drainNetworkQueue({ now: Date.now() - 2 * DAY });

const lostFraud = () =>
  disputeEntry({ disputeStatus: 'LOST', disputeReason: 'FRAUD', timestamp: Date.now() - 3 * DAY });

/** A ring's order at each merchant on one card and device, sighted days ago, then lost as fraud. */
async function lostAtEach(
  merchants: readonly Merchant[],
  ring = { card: orderBody().paymentInfo[0]!, device: uid('device') },
) {
  const orders = [];
  for (const m of merchants)
    orders.push(await placeOrder(suite.api, m.apiKey, { ...ring, timestamp: Date.now() - 10 * DAY }));
  await drainSightedDaysAgo();
  const disputes = [];
  for (const [i, m] of merchants.entries()) {
    const dispute = lostFraud();
    await reportDispute(suite.api, m.apiKey, orders[i]!.providerOrderId, dispute);
    disputes.push(dispute);
  }
  await drainNetworkQueue();
  return { order: orders[0]!, orders, disputes };
}

/** Three members that lost a fraud chargeback on the same card and device: over the floor. */
const lostAtThree = async () =>
  lostAtEach([await merchant(true), await merchant(true), await merchant(true)]);

/** The ring's next order: a new e-mail on the same card and device. */
const ringOrder = (order: OrderBody) =>
  orderBody({
    card: cardOf(order),
    device: order.deviceFingerprints[0]!.deviceIdentifier,
    timestamp: Date.now(),
  });

const decisionOf = async (key: string, body: OrderBody) =>
  orderDecision(await suite.api.post('/v1/order', body, { apiKey: key }));

/** What the score is made of but the identities' own values: the score, decision and reason. */
const shown = (d: ReturnType<typeof orderDecision>) => ({
  decision: d.decision,
  abuseScore: d.abuseScore,
  decisionReason: d.decisionReason,
});

/** The same ring order at a member and at a non-member: what the member shows beyond the outsider. */
async function probe(order: OrderBody) {
  const [b, outsider] = [await merchant(true), await merchant(false)];
  const body = ringOrder(order);
  return {
    atMember: await decisionOf(b.apiKey, body),
    atOutsider: await decisionOf(outsider.apiKey, { ...body, providerOrderId: uid('order') }),
  };
}

describe('membership', () => {
  it('is off by default; PUT turns it on and off, audited; a bad body is refused naming the field', async () => {
    const m = await newMerchant();
    const api = network(suite.api, await consoleKey(m.merchantId));
    expect((await api.show()).body).toEqual({ enabled: false });
    const on = await api.save({ enabled: true });
    expect(on.body).toMatchObject({ enabled: true, changedAt: expect.any(String) });
    expect((await api.show()).body).toEqual(on.body);
    // As every management body: a setting it does not know is a 422, a wrong type a 400, both named.
    expectError(await api.save({ enabled: true, share: 'all' }), 422, 'unknown_field', 'share');
    expectError(await api.save({ enabled: 'yes' }), 400, 'invalid_request', 'enabled');
    const missing = await api.save({});
    expect([400, 422]).toContain(missing.status);
    expect(missing.body.error.field).toBe('enabled');
    expect((await api.show()).body).toEqual(on.body);
    expect((await api.save({ enabled: false })).body.enabled).toBe(false);
    const audit = await suite.api.request('GET', '/v1/audit?limit=10', {
      apiKey: await consoleKey(m.merchantId, 'bo@acme.example'),
    });
    expect(
      audit.body.items
        .filter((e: { action: string }) => e.action === 'network.saved')
        .map((e: { detail: string }) => e.detail),
    ).toEqual([expect.stringMatching(/^left/), expect.stringMatching(/^joined/)]);
  });
});

describe('a ring moving from three merchants to B', () => {
  it('B, with no label of its own, sees three members’ lost fraud chargebacks as a signal and reason; a non-member does not', async () => {
    const { order } = await lostAtThree();
    const { atMember, atOutsider } = await probe(order);
    expect(atMember.decision).toBe('DECLINE');
    expect(atMember.decisionReason).toMatch(
      /card lost fraud chargebacks at 3 other merchants in the last week/,
    );
    expect(atOutsider.decisionReason).not.toMatch(/merchant/);
    expect(atOutsider.abuseScore).toBeLessThan(atMember.abuseScore);
  });

  it('counts a contribution once under concurrent and repeated feedback, and a WON dispute takes it back', async () => {
    const a = await merchant(true);
    const order = await placeOrder(suite.api, a.apiKey, { timestamp: Date.now() - DAY });
    await drainSightedDaysAgo();
    const lost = disputeEntry({ disputeStatus: 'LOST', disputeReason: 'FRAUD' });
    await Promise.all(
      [1, 2, 3].map(() =>
        suite.api.post(
          `/v1/order/dispute/${order.providerOrderId}`,
          { dispute: [lost] },
          { apiKey: a.apiKey },
        ),
      ),
    );
    await Promise.all([drainNetworkQueue(), drainNetworkQueue()]);
    await reportDispute(suite.api, a.apiKey, order.providerOrderId, lost);
    await drainNetworkQueue();
    const card = cardRefOf(order);
    const counted = {
      merchants: 1,
      abusedAt: [expect.any(Number)],
      abuse: { chargeback: { at: [expect.any(Number)] } },
    };
    expect(await reputationOf(card)).toMatchObject(counted);
    expect(await reputationOf(deviceOf(order))).toMatchObject(counted);

    await reportDispute(suite.api, a.apiKey, order.providerOrderId, {
      ...lost,
      disputeStatus: 'WON',
      timestamp: Date.now(),
    });
    await drainNetworkQueue();
    expect(await reputationOf(card)).toMatchObject({ merchants: 1, abuse: {}, abusedAt: [] });
  });

  it('a member’s dispositions uploaded as CSV contribute as its API calls do', async () => {
    const a = await merchant(true);
    const { order, returnBody } = await orderAndReturn(suite.api, a.apiKey);
    await drainSightedDaysAgo();
    const sku = order.lineItems[0]!.identifiers[0]!.identifier;
    const csv = [
      CSV_COLUMNS.join(','),
      `${returnBody.providerReturnId},SKU,${sku},EMPTY_BOX,REMOVE_SUSPECT_ABUSE,,,,,,`,
      '',
    ].join('\r\n');
    const upload = await suite.api.request('POST', '/v1/return/dispositions/upload', {
      apiKey: a.console,
      headers: { 'Content-Type': 'text/csv' },
      rawBody: csv,
    });
    expect(upload.status).toBe(202);
    await runUploadWorker({ merchantId: a.merchantId });
    await drainNetworkQueue();
    expect((await reputationOf(cardRefOf(order)))?.abuse).toMatchObject({
      disposition: { at: [expect.any(Number)] },
    });
  });

  it('leaving withdraws everything the merchant contributed', async () => {
    const [a, ...others] = [await merchant(true), await merchant(true), await merchant(true)];
    const { order } = await lostAtEach([a, ...others]);
    expect(await reputationOf(cardRefOf(order))).toMatchObject({ merchants: 3 });
    expect((await network(suite.api, a.console).save({ enabled: false })).body.enabled).toBe(false);
    await drainNetworkQueue();
    expect(await reputationOf(cardRefOf(order))).toMatchObject({
      merchants: 2,
      abusedAt: [expect.any(Number), expect.any(Number)],
    });
    // Two merchants left: under the floor, B reads nothing.
    const { atMember, atOutsider } = await probe(order);
    expect(shown(atMember)).toEqual(shown(atOutsider));
  });

  it('admin network withdraw takes one merchant’s wrong contribution back, audited; its sighting stays', async () => {
    const merchants = [await merchant(true), await merchant(true), await merchant(true)];
    const { order } = await lostAtEach(merchants);
    const card = order.paymentInfo[0]!;
    const identity = `card:${JSON.stringify({ BIN: card.BIN, last4: card.last4, expiry: card.expiry })}`;
    const result = await admin(
      'network',
      'withdraw',
      '--merchant',
      merchants[0]!.merchantId,
      '--identity',
      identity,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ causesWithdrawn: 1 });
    expect(await reputationOf(cardRefOf(order))).toMatchObject({
      merchants: 3,
      abusedAt: [expect.any(Number), expect.any(Number)],
    });
    const again = await admin(
      'network',
      'withdraw',
      '--merchant',
      merchants[0]!.merchantId,
      '--identity',
      identity,
    );
    expect(JSON.parse(again.stdout)).toMatchObject({ causesWithdrawn: 0 });
    const audit = await suite.api.request('GET', '/v1/audit?limit=10', { apiKey: merchants[0]!.console });
    expect(audit.body.items.map((e: { action: string }) => e.action)).toContain('network.withdrawn');
    const bad = await admin(
      'network',
      'withdraw',
      '--merchant',
      merchants[0]!.merchantId,
      '--identity',
      'phone:+15550100',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/identity/);
  });
});

describe('what one merchant reports alone, probed by another member', () => {
  it('a member sending 20 lost fraud chargebacks alone moves nothing: scores equal a non-member’s', async () => {
    const a = await merchant(true);
    const ring = { card: orderBody().paymentInfo[0]!, device: uid('device') };
    const orders = [];
    for (let i = 0; i < 20; i++)
      orders.push(await placeOrder(suite.api, a.apiKey, { ...ring, timestamp: Date.now() - 10 * DAY }));
    await drainSightedDaysAgo();
    for (const order of orders) await reportDispute(suite.api, a.apiKey, order.providerOrderId, lostFraud());
    await drainNetworkQueue();
    // The ledger counted every cause; the reputation counts the merchant once.
    expect(await reputationOf(cardRefOf(orders[0]!))).toMatchObject({ abusedAt: [expect.any(Number)] });
    const { atMember, atOutsider } = await probe(orders[0]!);
    expect(shown(atMember)).toEqual(shown(atOutsider));
  });

  it('two members’ reports stay under the floor; a third’s moves it', async () => {
    const [a1, a2, a3] = [await merchant(true), await merchant(true), await merchant(true)];
    const ring = { card: orderBody().paymentInfo[0]!, device: uid('device') };
    const { order } = await lostAtEach([a1, a2], ring);
    const two = await probe(order);
    expect(shown(two.atMember)).toEqual(shown(two.atOutsider));
    await lostAtEach([a3], ring);
    const three = await probe(order);
    expect(three.atMember.abuseScore).toBeGreaterThan(three.atOutsider.abuseScore);
    expect(three.atMember.decisionReason).toMatch(/at 3 other merchants/);
  });

  it('a made-up order with a LOST dispute within 24 hours contributes nothing, at three merchants', async () => {
    const ring = { card: orderBody().paymentInfo[0]!, device: uid('device') };
    const merchants = [await merchant(true), await merchant(true), await merchant(true)];
    const orders = [];
    for (const m of merchants) {
      // Dated days back, so that three first sightings in the last day do not speak instead.
      const order = await placeOrder(suite.api, m.apiKey, { ...ring, timestamp: Date.now() - 10 * DAY });
      await reportDispute(
        suite.api,
        m.apiKey,
        order.providerOrderId,
        disputeEntry({ disputeStatus: 'LOST' }),
      );
      orders.push(order);
    }
    await drainNetworkQueue();
    expect(await reputationOf(cardRefOf(orders[0]!))).toMatchObject({
      merchants: 3,
      abuse: {},
      abusedAt: [],
    });
    const { atMember, atOutsider } = await probe(orders[0]!);
    expect(shown(atMember)).toEqual(shown(atOutsider));
  });

  it('a merchant’s contributions past the day’s cap are dropped', async () => {
    const a = await merchant(true);
    const [first, second] = [await placeOrder(suite.api, a.apiKey), await placeOrder(suite.api, a.apiKey)];
    await drainSightedDaysAgo();
    // Each lost order confirms its card, device and e-mail: the first one taken fills a cap of 3.
    process.env.NETWORK_CAUSES_PER_DAY = '3';
    try {
      for (const order of [first, second])
        await reportDispute(suite.api, a.apiKey, order.providerOrderId, lostFraud());
      await drainNetworkQueue();
    } finally {
      delete process.env.NETWORK_CAUSES_PER_DAY;
    }
    // The worker takes them in either order: one order's three identities counted, the other's none.
    const counted = [];
    for (const order of [first, second])
      for (const ref of [cardRefOf(order), deviceOf(order)])
        counted.push(((await reputationOf(ref))!.abusedAt as number[]).length);
    expect(counted.sort()).toEqual([0, 0, 1, 1]);
  });
});

describe('a merchant outside the network', () => {
  it('scores exactly as without the network, and its feedback contributes nothing', async () => {
    const { order } = await lostAtThree();
    const [n1, n2] = [await merchant(false), await merchant(false)];
    // The same order shape, one on the networked card and device, one on fresh ones.
    const onRing = await decisionOf(n1.apiKey, ringOrder(order));
    const fresh = await decisionOf(n2.apiKey, orderBody());
    expect(shown(onRing)).toEqual(shown(fresh));

    const own = await placeOrder(suite.api, n1.apiKey, { timestamp: Date.now() - 86_400_000 });
    await drainSightedDaysAgo();
    await reportDispute(suite.api, n1.apiKey, own.providerOrderId, disputeEntry({ disputeStatus: 'LOST' }));
    await drainNetworkQueue();
    expect(await reputationOf(cardRefOf(own))).toBeUndefined();
  });
});

describe('isolation, probed by a member', () => {
  it('a card another member has only seen scores as it would at a non-member (below the floor)', async () => {
    const [a, b, outsider] = [await merchant(true), await merchant(true), await merchant(false)];
    const seen = await placeOrder(suite.api, a.apiKey);
    await drainNetworkQueue();
    expect(await reputationOf(cardRefOf(seen))).toMatchObject({ merchants: 1 });
    const probe = orderBody({ card: cardOf(seen) });
    const atMember = await decisionOf(b.apiKey, probe);
    const atOutsider = await decisionOf(outsider.apiKey, { ...probe, providerOrderId: uid('order') });
    expect(shown(atMember)).toEqual(shown(atOutsider));
  });

  it('abuse elsewhere shows only as the documented reason: no merchant, order, dispute, amount or value', async () => {
    const [a, b] = [await merchant(true), await merchant(true)];
    const { order, orders, disputes } = await lostAtEach([a, await merchant(true), await merchant(true)]);
    const { decisionReason } = await decisionOf(b.apiKey, ringOrder(order));
    for (const secret of [
      a.merchantId,
      ...orders.map((o) => o.providerOrderId),
      ...disputes.map((d) => d.disputeId),
      order.paymentInfo[0]!.last4,
      '49.99',
    ])
      expect(decisionReason).not.toContain(secret);
    const networkWords = decisionReason.split('; ').filter((part) => part.includes('merchant'));
    // Merchants, not causes; an age band, not a day.
    expect(networkWords).toEqual(['card lost fraud chargebacks at 3 other merchants in the last week']);
  });

  it('every management endpoint given another member’s ids answers as for unknown ones', async () => {
    const [a, b] = [await merchant(true), await merchant(true)];
    const { order, disputes } = await lostAtEach([a]);
    const dispute = disputes[0]!;
    const probes: Record<string, string> = {
      '{type}': 'order',
      '{id}': order.providerOrderId,
      '{review-id}': dispute.disputeId,
      '{webhook-id}': uid('wh'),
      '{delivery-id}': uid('whd'),
      '{entry-id}': uid('entry'),
      '{upload-id}': uid('upload'),
    };
    for (const [name, definition] of Object.entries(MANAGEMENT_ENDPOINT_DEFINITIONS)) {
      if (definition.method !== 'GET' || !definition.path.includes('{')) continue;
      let path: string = definition.path;
      for (const [slot, value] of Object.entries(probes))
        path = path.replace(slot, encodeURIComponent(value));
      const theirs = await suite.api.request('GET', path, { apiKey: b.console });
      expect([404, 200], `${name} ${path}`).toContain(theirs.status);
      expect(JSON.stringify(theirs.body ?? {}), name).not.toContain(a.merchantId);
      if (name === 'decisionShow') expect(theirs.status).toBe(404);
    }
    // The network endpoint shows the caller's membership only.
    expect(Object.keys((await network(suite.api, b.console).show()).body).sort()).toEqual([
      'changedAt',
      'enabled',
    ]);
  });

  it('joining takes effect on decisions within the key cache’s lifetime', async () => {
    const late = await merchant(false);
    const { order } = await lostAtThree();
    const before = await decisionOf(late.apiKey, ringOrder(order));
    expect(before.decisionReason).not.toMatch(/merchant/);
    await network(suite.api, late.console).save({ enabled: true });
    await waitForKeyCacheExpiry();
    expect((await decisionOf(late.apiKey, ringOrder(order))).decisionReason).toMatch(/at 3 other merchants/);
  });
});
