import { drainNetworkQueue } from '../../shared/use-cases/network-worker.ts';
import type { TestApi } from './api.ts';
import { disputeEntry, placeOrder, returnBody } from './commerce.ts';
import { type networkMember, reviewEveryReturn, saveWorkflow } from './console.ts';
import { reportDispute } from './lists.ts';

const DAY = 86_400_000;

export type Member = Awaited<ReturnType<typeof networkMember>>;

/**
 * A customer's history at a merchant, for the privacy suites: an order with a lost fraud chargeback,
 * and a return of it sent to review and resolved as abuse with a note (audit entry, network feedback).
 */
export async function customerAt(
  api: TestApi,
  m: Member,
  email: string,
  card: { BIN: string; last4: string; expiry: string },
) {
  if ((await saveWorkflow(api, m.console, 'return', reviewEveryReturn)).status !== 200)
    throw new Error('saving the return workflow failed');
  const order = await placeOrder(api, m.apiKey, { email, card, timestamp: Date.now() - 10 * DAY });
  const returned = await api.post('/v1/return', returnBody(order), { apiKey: m.apiKey });
  if (returned.status !== 200) throw new Error(`return failed: ${returned.text}`);
  const dispute = disputeEntry({
    disputeStatus: 'LOST',
    disputeReason: 'FRAUD',
    timestamp: Date.now() - DAY,
  });
  await reportDispute(api, m.apiKey, order.providerOrderId, dispute);
  const reviews = await api.request('GET', '/v1/reviews?status=open', { apiKey: m.console });
  const reviewId = reviews.body.items[0].reviewId as string;
  const resolved = await api.request('POST', `/v1/reviews/${reviewId}/resolve`, {
    apiKey: m.console,
    rawBody: JSON.stringify({ outcome: 'abuse', note: `wardrobing by ${email}` }),
  });
  if (resolved.status !== 200) throw new Error(`resolving the review failed: ${resolved.text}`);
  await drainNetworkQueue();
  return { order, returnId: returnBody(order).providerReturnId, dispute, reviewId };
}

/** Posts a privacy request at the merchant and answers its Location. */
export async function requestPrivacy(api: TestApi, m: Member, body: unknown): Promise<string> {
  const accepted = await api.request('POST', '/v1/privacy/requests', {
    apiKey: m.console,
    rawBody: JSON.stringify(body),
  });
  if (accepted.status !== 202) throw new Error(`privacy request refused: ${accepted.text}`);
  return accepted.headers.get('location')!;
}
