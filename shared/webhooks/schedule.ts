/**
 * When to try a failed delivery again, and when to stop. Pure: the worker passes the clock and the
 * random source, so tests drive 72 hours of retries without waiting.
 */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** A delivery is retried for this long after its event; an endpoint failing this long is disabled. */
export const RETRY_WINDOW_MS = 72 * 3_600_000;
const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 3 * 3_600_000;

/**
 * Exponential backoff with jitter: 30 s, 1 min, 2 min, ... capped at 3 h, each drawn uniformly from
 * half to all of that wait so receivers recovering together are not hit together.
 */
function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export type AttemptResult = { ok: true; status: number } | { ok: false; status?: number; error: string };

export type NextStep =
  | { status: 'delivered' }
  | { status: 'pending'; nextAttemptAt: number }
  | { status: 'failed' };

/** After attempt number `attempts` (1-based) of a delivery first due at `firstDueAt`. */
export function nextStep(
  result: AttemptResult,
  attempts: number,
  firstDueAt: number,
  now: number,
  random: () => number = Math.random,
): NextStep {
  if (result.ok) return { status: 'delivered' };
  const nextAttemptAt = now + retryDelayMs(attempts, random);
  return nextAttemptAt - firstDueAt > RETRY_WINDOW_MS
    ? { status: 'failed' }
    : { status: 'pending', nextAttemptAt };
}

/** An endpoint whose deliveries have failed without a success since `failingSince` is disabled. */
export const failingTooLong = (failingSince: number | undefined, now: number) =>
  failingSince !== undefined && now - failingSince >= RETRY_WINDOW_MS;
