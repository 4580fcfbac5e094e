import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../shared/console/dispositions-upload.ts';
import { MANAGEMENT_ENDPOINT_DEFINITIONS } from '../shared/contract/management-endpoints.ts';
import { networkKeyOf } from '../shared/network/network-key.ts';
import { readNetworkSecret } from '../shared/network/network-secret.ts';
import { networkKeys } from '../shared/store/keys.ts';
import { getRecord } from '../shared/store/record-once.ts';
import { drainNetworkQueue } from '../shared/use-cases/network-worker.ts';
import { runUploadWorker } from '../shared/use-cases/record-upload.ts';
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

/** A ring's order at A that lost a fraud chargeback, with the worker run. */
const DAY = 86_400_000;
async function lostAt(
  a: Merchant,
  dispute = disputeEntry({ disputeStatus: 'LOST', disputeReason: 'FRAUD', timestamp: Date.now() - 3 * DAY }),
) {
  const order = await placeOrder(suite.api, a.apiKey, { timestamp: Date.now() - 10 * DAY });
  await reportDispute(suite.api, a.apiKey, order.providerOrderId, dispute);
  await drainNetworkQueue();
  return { order, dispute };
}

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

describe('a ring moving from A to B', () => {
  it('B, with no label of its own, sees A’s lost fraud chargeback as a signal and reason; a non-member does not', async () => {
    const [a, b, outsider] = [await merchant(true), await merchant(true), await merchant(false)];
    const { order } = await lostAt(a);
    const atB = await decisionOf(b.apiKey, ringOrder(order));
    expect(atB.decision).toBe('DECLINE');
    expect(atB.decisionReason).toMatch(/card lost a fraud chargeback at another merchant 3 days ago/);
    const outside = await decisionOf(outsider.apiKey, ringOrder(order));
    expect(outside.decisionReason).not.toMatch(/merchant/);
    expect(outside.abuseScore).toBeLessThan(atB.abuseScore);
  });

  it('counts a contribution once under concurrent and repeated feedback, and a WON dispute takes it back', async () => {
    const a = await merchant(true);
    const order = await placeOrder(suite.api, a.apiKey, { timestamp: Date.now() - DAY });
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
    expect(await reputationOf(card)).toMatchObject({ merchants: 1, abuse: { chargeback: { n: 1 } } });
    expect((await reputationOf(deviceOf(order)))?.abuse).toMatchObject({ chargeback: { n: 1 } });

    await reportDispute(suite.api, a.apiKey, order.providerOrderId, {
      ...lost,
      disputeStatus: 'WON',
      timestamp: Date.now(),
    });
    await drainNetworkQueue();
    const after = await reputationOf(card);
    expect(after).toMatchObject({ merchants: 1, abuse: {} });
    const b = await merchant(true);
    expect((await decisionOf(b.apiKey, ringOrder(order))).decisionReason).not.toMatch(/chargeback/);
  });

  it('a member’s dispositions uploaded as CSV contribute as its API calls do', async () => {
    const a = await merchant(true);
    const { order, returnBody } = await orderAndReturn(suite.api, a.apiKey);
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
    expect((await reputationOf(cardRefOf(order)))?.abuse).toMatchObject({ disposition: { n: 1 } });
  });

  it('leaving withdraws everything the merchant contributed', async () => {
    const a = await merchant(true);
    const { order } = await lostAt(a);
    expect(await reputationOf(cardRefOf(order))).toMatchObject({ merchants: 1 });
    expect((await network(suite.api, a.console).save({ enabled: false })).body.enabled).toBe(false);
    await drainNetworkQueue();
    expect(await reputationOf(cardRefOf(order))).toBeUndefined();
    expect(await reputationOf(deviceOf(order))).toBeUndefined();
    const b = await merchant(true);
    expect((await decisionOf(b.apiKey, ringOrder(order))).decisionReason).not.toMatch(/merchant/);
  });
});

describe('a merchant outside the network', () => {
  it('scores exactly as without the network, and its feedback contributes nothing', async () => {
    const a = await merchant(true);
    const { order } = await lostAt(a);
    const [n1, n2] = [await merchant(false), await merchant(false)];
    // The same order shape, one on the networked card and device, one on fresh ones.
    const onRing = await decisionOf(n1.apiKey, ringOrder(order));
    const fresh = await decisionOf(n2.apiKey, orderBody());
    expect(shown(onRing)).toEqual(shown(fresh));

    const own = await placeOrder(suite.api, n1.apiKey, { timestamp: Date.now() - 86_400_000 });
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
    const { order, dispute } = await lostAt(a);
    const { decisionReason } = await decisionOf(b.apiKey, ringOrder(order));
    for (const secret of [
      a.merchantId,
      order.providerOrderId,
      dispute.disputeId,
      order.paymentInfo[0]!.last4,
      '49.99',
    ])
      expect(decisionReason).not.toContain(secret);
    const networkWords = decisionReason.split('; ').filter((part) => part.includes('merchant'));
    expect(networkWords).toEqual(['card lost a fraud chargeback at another merchant 3 days ago']);
  });

  it('every management endpoint given another member’s ids answers as for unknown ones', async () => {
    const [a, b] = [await merchant(true), await merchant(true)];
    const { order, dispute } = await lostAt(a);
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
    const [a, late] = [await merchant(true), await merchant(false)];
    const { order } = await lostAt(a);
    const before = await decisionOf(late.apiKey, ringOrder(order));
    expect(before.decisionReason).not.toMatch(/merchant/);
    await network(suite.api, late.console).save({ enabled: true });
    await waitForKeyCacheExpiry();
    expect((await decisionOf(late.apiKey, ringOrder(order))).decisionReason).toMatch(/at another merchant/);
  });
});
