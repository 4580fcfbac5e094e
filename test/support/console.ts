import { createApiKey } from '../../shared/store/merchants.ts';
import type { ApiResponse, TestApi } from './api.ts';
import { placeOrder, returnBody } from './commerce.ts';
import type { OrderOptions } from './fixtures.ts';

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
