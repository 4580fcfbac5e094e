import { StoreUnavailableError } from '../errors.ts';
import { requestDeadline } from '../request-scope.ts';

/**
 * DynamoDB failures that say "not now" rather than "never": throttling and timeouts. They reach us
 * only once the SDK's own retries are spent; shared/store/client.ts turns them into
 * StoreUnavailableError (503 with Retry-After), and the store retries them within the request's
 * time budget where a retry is safe.
 */
const THROTTLES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
]);
const TIMEOUTS = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

export function isThrottle(error: unknown): boolean {
  return THROTTLES.has((error as Error | undefined)?.name ?? '');
}

export function isTimeout(error: unknown): boolean {
  const failure = error as (Error & { code?: string }) | undefined;
  return TIMEOUTS.has(failure?.name ?? '') || failure?.code === 'ETIMEDOUT';
}

/**
 * DynamoDB refusing a write for its size: an item past 400 KB, or a transaction past 4 MB. Should a
 * valid request make one, it is answered 413 naming the limit, never 500, and nothing of it is
 * written.
 */
const TOO_LARGE =
  /item size (to update )?has exceeded the maximum allowed size|transaction request cannot be larger than/i;

export function isTooLargeToStore(error: unknown): boolean {
  const failure = error as Error | undefined;
  return failure?.name === 'ValidationException' && TOO_LARGE.test(failure.message ?? '');
}

/** A timeout leaves it open whether DynamoDB applied the call; a throttled call was never applied. */
export const outcomeUnknown = (error: unknown): boolean =>
  isTimeout(error) || (error instanceof StoreUnavailableError && isTimeout(error.cause));

/** Attempts per store call (first try included), whatever time is left. */
export const MAX_STORE_ATTEMPTS = 5;
/** A retry needs at least this long before the deadline to be worth starting. */
const MIN_ATTEMPT_MS = 50;

/**
 * The one backoff of the store and the use cases: waits before retry number `attempt` (full jitter:
 * a random wait up to 25 ms * 2^attempt, capped at 2^5, so competing requests spread out), or gives
 * up with StoreUnavailableError once `maxAttempts` or the request's time budget are spent.
 */
export async function pauseBeforeRetry(
  attempt: number,
  cause: unknown,
  what: string,
  maxAttempts = MAX_STORE_ATTEMPTS,
): Promise<void> {
  const wait = Math.random() * 25 * 2 ** Math.min(attempt, 5);
  if (attempt >= maxAttempts || Date.now() + wait + MIN_ATTEMPT_MS > requestDeadline()) {
    throw cause instanceof StoreUnavailableError ? cause : new StoreUnavailableError(what, { cause });
  }
  await new Promise((resolve) => setTimeout(resolve, wait));
}
