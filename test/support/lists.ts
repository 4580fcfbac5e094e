import { expect } from 'vitest';
import type { ApiResponse, TestApi } from './api.ts';
import { disputeEntry, type OrderBody, placeOrder } from './commerce.ts';
import type { OrderOptions } from './fixtures.ts';

/** Block, watch and allow lists through the management API with a console key, and the feedback that fills them. */
export function listsApi(api: TestApi, consoleKey: string) {
  const send = (method: string, path: string, body?: unknown) =>
    api.request(method, path, {
      apiKey: consoleKey,
      ...(body !== undefined ? { rawBody: JSON.stringify(body) } : {}),
    });
  return {
    add: (body: unknown) => send('POST', '/v1/lists', body),
    list: (query = '') => send('GET', `/v1/lists${query ? `?${query}` : ''}`),
    show: (entryId: string) => send('GET', `/v1/lists/${encodeURIComponent(entryId)}`),
    remove: (entryId: string) => send('DELETE', `/v1/lists/${encodeURIComponent(entryId)}`),
    rules: () => send('GET', '/v1/list-rules'),
    saveRules: (rules: unknown) => send('PUT', '/v1/list-rules', rules),
    audit: () => send('GET', '/v1/audit?limit=100'),
    /** Every entry of the merchant (all pages). */
    async all(query = ''): Promise<ListEntryShown[]> {
      const entries: ListEntryShown[] = [];
      let cursor: string | undefined;
      do {
        const page = await send(
          'GET',
          `/v1/lists?limit=100${query ? `&${query}` : ''}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(page.status).toBe(200);
        entries.push(...page.body.items);
        cursor = page.body.nextCursor;
      } while (cursor);
      return entries;
    },
  };
}

export interface ListEntryShown {
  entryId: string;
  list: string;
  kind: string;
  identity: string;
  identityDigest: string;
  reason: string;
  source: string;
  createdBy: string;
  status: string;
  cause?: string;
  eventTypes?: string[];
}

/** Reports a dispute on an order (asserting success). */
export async function reportDispute(
  api: TestApi,
  eventsKey: string,
  providerOrderId: string,
  entry: ReturnType<typeof disputeEntry>,
): Promise<ApiResponse> {
  const response = await api.post(
    `/v1/order/dispute/${encodeURIComponent(providerOrderId)}`,
    { dispute: [entry] },
    {
      apiKey: eventsKey,
    },
  );
  expect(response.status, response.text).toBe(200);
  return response;
}

/** An order whose fraud chargeback was lost at `lostAt`: its card is then blocked for orders. */
export async function orderWithLostFraudChargeback(
  api: TestApi,
  eventsKey: string,
  options: OrderOptions = {},
  lostAt = Date.now() - 5_000,
) {
  const order = await placeOrder(api, eventsKey, { timestamp: lostAt - 60_000, ...options });
  const dispute = disputeEntry({ disputeStatus: 'LOST', disputeReason: 'FRAUD', timestamp: lostAt });
  await reportDispute(api, eventsKey, order.providerOrderId, dispute);
  return { order, dispute };
}

/** The decision of an order answer. */
export const orderDecision = (response: ApiResponse) => {
  expect(response.status, response.text).toBe(200);
  return response.body.cartLevelDecisions[0].decisions[0] as {
    decision: string;
    subDecision: string;
    decisionReason: string;
    abuseScore: number;
  };
};

/** The same card as `order`'s, for another order. */
export const cardOf = (order: OrderBody) => {
  const payment = order.paymentInfo[0]!;
  return { BIN: payment.BIN, last4: payment.last4, expiry: payment.expiry };
};
