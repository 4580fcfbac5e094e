import { vi } from 'vitest';
import * as z from 'zod';
import type { TestApi } from './api.ts';
import { type Delivery, isScored, pathOf } from './live-traffic/delivery.ts';

/**
 * Plays deliveries through the HTTP API one by one, in arrival order, with the server's clock at
 * each one's time (as scripts/eval.ts does): what the service knows "by then" is exactly what arrived
 * before, and an event without a `timestamp` is dated on arrival, as live.
 */
type Decision = 'APPROVE' | 'DECLINE' | 'REVIEW';

export interface Outcome {
  delivery: Delivery;
  status: number;
  /** Scored events: the decision (for a return, the strictest of its lines). */
  decision?: Decision;
  /** The decision's reason (`decisionReason`, or a returned line's `reason`). */
  reason?: string;
  /** A non-200 answer's body, for the failure message. */
  error?: string;
}

const decisionSchema = z.object({
  decision: z.enum(['APPROVE', 'DECLINE', 'REVIEW']),
  decisionReason: z.string(),
});
const accountEventAnswer = z.object({ Decisions: z.array(z.object({ decisions: z.array(decisionSchema) })) });
const orderAnswer = z.object({
  cartLevelDecisions: z.array(z.object({ decisions: z.array(decisionSchema) })),
});
const returnAnswer = z.object({
  returnedLineItems: z.array(
    z.object({ decision: z.enum(['APPROVE', 'DECLINE', 'REVIEW']), reason: z.string() }),
  ),
});

const STRICTNESS: Record<Decision, number> = { APPROVE: 0, REVIEW: 1, DECLINE: 2 };

export async function deliverLive(
  api: TestApi,
  apiKey: string,
  deliveries: readonly Delivery[],
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    for (const delivery of deliveries) {
      vi.setSystemTime(delivery.at);
      const headers: Record<string, string> = delivery.idempotencyKey
        ? { 'Idempotency-Key': delivery.idempotencyKey }
        : {};
      const response = await api.post(pathOf(delivery), delivery.body, { apiKey, headers });
      outcomes.push(
        response.status === 200
          ? { delivery, status: 200, ...decisionOf(delivery, response.body) }
          : { delivery, status: response.status, error: response.text.slice(0, 300) },
      );
    }
  } finally {
    vi.useRealTimers();
  }
  return outcomes;
}

function decisionOf(delivery: Delivery, body: unknown): { decision?: Decision; reason?: string } {
  if (!isScored(delivery.kind)) return {};
  if (delivery.kind === 'order') {
    const { decision, decisionReason } = orderAnswer.parse(body).cartLevelDecisions[0]!.decisions[0]!;
    return { decision, reason: decisionReason };
  }
  if (delivery.kind === 'return') {
    const lines = returnAnswer.parse(body).returnedLineItems;
    const strictest = lines.reduce((a, b) => (STRICTNESS[b.decision] > STRICTNESS[a.decision] ? b : a));
    return { decision: strictest.decision, reason: strictest.reason };
  }
  const { decision, decisionReason } = accountEventAnswer.parse(body).Decisions[0]!.decisions[0]!;
  return { decision, reason: decisionReason };
}
