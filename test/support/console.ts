import { createApiKey } from '../../shared/store/merchants.ts';
import { type ApiResponse, newMerchant, type TestApi } from './api.ts';
import { placeOrder, returnBody } from './commerce.ts';
import { type OrderOptions, uid } from './fixtures.ts';

/** Console helpers: a console key, a workflow that sends every return to review, a reviewed return. */
export async function consoleKey(merchantId: string, name = 'ana@acme.example'): Promise<string> {
  const issued = await createApiKey({ merchantId, environment: 'sandbox', scope: 'console', name });
  return issued!.apiKey;
}

export const reviewEveryReturn = {
  rules: [{ name: 'review_all_returns', decision: 'REVIEW', condition: 'abuseScore >= 0' }],
  defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
};

export function saveWorkflow(
  api: TestApi,
  key: string,
  type: string,
  workflow: unknown,
): Promise<ApiResponse> {
  return api.request('PUT', `/v1/workflows/${type}`, { apiKey: key, rawBody: JSON.stringify({ workflow }) });
}

/** An order and a return of it through the event API, with an events key. */
export async function orderAndReturn(api: TestApi, eventsKey: string, options: OrderOptions = {}) {
  const order = await placeOrder(api, eventsKey, options);
  const body = returnBody(order);
  const response = await api.post('/v1/return', body, { apiKey: eventsKey });
  if (response.status !== 200) throw new Error(`return failed: ${response.status} ${response.text}`);
  return { order, returnBody: body, response };
}

/**
 * Text a merchant may send that a careless page would interpret: markup with a script hook, both
 * quote marks, a right-to-left mark (U+200F) and a right-to-left override (U+202E).
 */
export const HOSTILE_TEXT = `<img src=x onerror=alert(1)> "quotes" and 'apostrophes' \u200Fmark \u202Eoverride`;

/**
 * An order and a return of it (the return sent to review), whose ids, item identifier and reasons hold
 * HOSTILE_TEXT, through the public event API; the workflows' rule reasons carry it into the decision
 * reasons. Returns the ids as sent and each decision's reason as the management API tells it.
 */
export async function seedHostileText(api: TestApi, eventsKey: string, consoleKeyOfMerchant: string) {
  // Orders are never sent to review: the order is approved, the return reviewed, both for this reason.
  for (const [type, decision] of [
    ['order', 'APPROVE'],
    ['return', 'REVIEW'],
  ] as const) {
    const saved = await saveWorkflow(api, consoleKeyOfMerchant, type, {
      rules: [{ name: 'every_event', decision, condition: 'abuseScore >= 0', reason: HOSTILE_TEXT }],
      defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
    });
    if (saved.status !== 200) throw new Error(`workflow failed: ${saved.status} ${saved.text}`);
  }
  const order = await placeOrder(api, eventsKey, {
    providerOrderId: `${uid('order')} ${HOSTILE_TEXT}`,
    items: [{ sku: `${uid('sku')} ${HOSTILE_TEXT}` }],
  });
  const body = {
    ...returnBody(order, { providerReturnId: `${uid('return')} ${HOSTILE_TEXT}` }),
    reason: HOSTILE_TEXT,
  };
  body.returnedLineItems = body.returnedLineItems.map((line) => ({ ...line, reason: HOSTILE_TEXT }));
  const returned = await api.post('/v1/return', body, { apiKey: eventsKey });
  if (returned.status !== 200) throw new Error(`return failed: ${returned.status} ${returned.text}`);
  const reasonOf = async (type: string, id: string): Promise<string> => {
    const found = await api.request('GET', `/v1/decisions/${type}/${encodeURIComponent(id)}`, {
      apiKey: consoleKeyOfMerchant,
    });
    if (found.status !== 200) throw new Error(`decision lookup failed: ${found.status} ${found.text}`);
    return found.body.decisions[0].reason;
  };
  return {
    consoleKey: consoleKeyOfMerchant,
    order: { providerOrderId: order.providerOrderId, reason: await reasonOf('order', order.providerOrderId) },
    return: {
      providerReturnId: body.providerReturnId,
      reason: await reasonOf('return', body.providerReturnId),
    },
  };
}

/** A fresh merchant in the opt-in network, with its console key. */
export async function networkMember(api: TestApi) {
  const merchant = await newMerchant();
  const key = await consoleKey(merchant.merchantId);
  const joined = await api.request('PUT', '/v1/network', { apiKey: key, rawBody: '{"enabled":true}' });
  if (joined.status !== 200) throw new Error(`joining the network failed: ${joined.status} ${joined.text}`);
  return { ...merchant, console: key };
}
