import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labelEvents } from '../../shared/learning/labels.ts';
import { loadTrainingData } from '../../shared/store/training-rows.ts';
import { loginBody, signupBody } from '../support/account-fixtures.ts';
import { newMerchant, startTestApi, type TestApi } from '../support/api.ts';
import { disputeEntry, itemDisposition, placeOrder, returnBody } from '../support/commerce.ts';

const DAY = 86_400_000;
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** Orders 100 days old with feedback, one fresh order (training's "now"), sent through the HTTP API. */
async function merchantWithHistory() {
  const { merchantId, apiKey } = await newMerchant();
  const now = Date.now() - 60_000;
  const old = now - 100 * DAY;
  const orders = [];
  for (let i = 0; i < 4; i++) orders.push(await placeOrder(api, apiKey, { timestamp: old + i * 1000 }));
  const fresh = await placeOrder(api, apiKey, { timestamp: now });
  const dispute = async (orderId: string, disputeStatus: string) => {
    const body = { dispute: [disputeEntry({ disputeStatus, timestamp: old + 10 * DAY })] };
    expect((await api.post(`/v1/order/dispute/${orderId}`, body, { apiKey })).status).toBe(200);
  };
  await dispute(orders[0]!.providerOrderId, 'LOST');
  await dispute(orders[1]!.providerOrderId, 'OPEN');
  await dispute(orders[2]!.providerOrderId, 'WON');
  const returned = returnBody(orders[3]!, { timestamp: old + 5 * DAY });
  expect((await api.post('/v1/return', returned, { apiKey })).status).toBe(200);
  const disposition = {
    itemDispositions: [itemDisposition(orders[3]!, 0, 'EMPTY_BOX', 'REMOVE_SUSPECT_ABUSE')],
  };
  const answer = await api.post(`/v1/return/disposition/${returned.providerReturnId}`, disposition, {
    apiKey,
  });
  expect(answer.status).toBe(200);
  return { merchantId, orders, fresh, returned, now };
}

describe('training rows read from DynamoDB Local', () => {
  it('orders with their stored signals, disputes in their current state, and event-time "now"', async () => {
    const { merchantId, orders, fresh, now } = await merchantWithHistory();
    const data = await loadTrainingData(merchantId, 'order', 1_000);
    expect(data.latestEventTime).toBe(now);
    expect(data.events.map((e) => e.eventId).sort()).toEqual(
      [...orders.map((o) => o.providerOrderId), fresh.providerOrderId].sort(),
    );
    const first = data.events.find((e) => e.eventId === orders[0]!.providerOrderId)!;
    expect(first.identities.some((id) => id.startsWith('email#'))).toBe(true);
    expect(first.parts).toHaveLength(1);
    expect(first.parts[0]!.signals).toHaveProperty('newCustomer');
    // The value the economics weigh: the order's total.
    expect(first.parts[0]!.value).toBe(Number(orders[0]!.totalPrice.amount));
    expect(
      data.feedback
        .filter((f) => f.kind === 'dispute')
        .map((f) => f.status)
        .sort(),
    ).toEqual(['LOST', 'OPEN', 'WON']);

    const labels = labelEvents('order', data.events, data.feedback, data.latestEventTime!);
    const byOrder = Object.fromEntries(
      labels.map((l) => [data.events.find((e) => e.eventKey === l.eventKey)!.eventId, [l.label, l.rule]]),
    );
    expect(byOrder).toEqual({
      [orders[0]!.providerOrderId]: [1, 'lost_chargeback'],
      [orders[1]!.providerOrderId]: [1, 'pending_chargeback'],
      [orders[2]!.providerOrderId]: [0, 'no_abuse_in_window'],
      [orders[3]!.providerOrderId]: [0, 'no_abuse_in_window'],
    });
  });

  it('returns with the dispositions of each returned line', async () => {
    const { merchantId, returned } = await merchantWithHistory();
    const data = await loadTrainingData(merchantId, 'return', 1_000);
    expect(data.events.map((e) => e.eventId)).toEqual([returned.providerReturnId]);
    const labels = labelEvents('return', data.events, data.feedback, data.latestEventTime!);
    expect(labels.map((l) => [l.part, l.label, l.rule])).toEqual([[0, 1, 'abusive_disposition']]);
    // A returned line's value: one unit at its price on the order.
    expect(labels[0]!.value).toBe(49.99);
  });

  it('dates signups and logins by their timestamp, and an order by its first event time', async () => {
    const { merchantId, apiKey } = await newMerchant();
    const sent = Date.now() - 50 * DAY;
    const signup = { ...signupBody(), timestamp: String(sent) };
    expect((await api.post('/v1/evaluate/signup', signup, { apiKey })).status).toBe(200);
    const login = { ...loginBody({ providerCustomerId: signup.customerId }), timestamp: String(sent + DAY) };
    expect((await api.post('/v1/evaluate/login', login, { apiKey })).status).toBe(200);
    const order = await placeOrder(api, apiKey, { timestamp: sent + 2 * DAY });
    // A status-only update moves the order's current timestamp, not when the order happened.
    const shipped = { ...order, state: 'AUTHORIZED', timestamp: String(sent + 9 * DAY) };
    expect((await api.post('/v1/order', shipped, { apiKey })).status).toBe(200);

    const timesOf = async (type: 'signup' | 'login') => {
      const data = await loadTrainingData(merchantId, type, 1_000);
      expect(data.latestEventTime).toBe(sent + 2 * DAY);
      return Object.fromEntries(data.events.map((e) => [e.eventType, e.at]));
    };
    expect(await timesOf('signup')).toEqual({ signup: sent, order: sent + 2 * DAY });
    expect(await timesOf('login')).toEqual({ login: sent + DAY, order: sent + 2 * DAY });
  });
});
