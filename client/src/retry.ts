/**
 * The API's retry rules (docs/api.md, Calling it): retry 429, 500, 502, 503 and network errors; honour
 * Retry-After; otherwise wait 1 s, 2 s, 4 s, 8 s (with jitter) before attempts 2 to 5; give up after
 * attempt 5.
 */
export const MAX_ATTEMPTS = 5;
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503]);
const BASE_DELAY_MS = 1_000;
/** Each wait is its base ±20 %, so clients that failed together do not retry together. */
const JITTER = 0.2;

export interface RetryTiming {
  /** Waits `ms` milliseconds; setTimeout by default (tests use fake timers). */
  sleep: (ms: number) => Promise<void>;
  /** A number in [0, 1); Math.random by default. */
  random: () => number;
}

export const defaultTiming: RetryTiming = {
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/** The wait before attempt `attempt + 1`: Retry-After when the answer gave one, else the backoff. */
export function retryDelayMs(attempt: number, retryAfter: string | null, random: () => number): number {
  const fromHeader = retryAfterMs(retryAfter);
  if (fromHeader !== undefined) return fromHeader;
  const base = BASE_DELAY_MS * 2 ** (attempt - 1);
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/** Retry-After as delta-seconds or an HTTP-date (RFC 9110 10.2.3). */
function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1_000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** What the retrying transport saw of one logical call. */
export interface CallRecord {
  attempts: number;
  /** The last network failure, when the last attempt got no answer. */
  networkError?: unknown;
}

/**
 * A fetch that sends `request` until it gets an answer that is not retried, or attempt 5 is spent.
 * Each attempt sends a clone, so the body (and the Idempotency-Key header) is the same every time.
 */
export function retryingFetch(
  send: (request: Request) => Promise<Response>,
  timing: RetryTiming,
  record: CallRecord,
): (request: Request) => Promise<Response> {
  return async (request) => {
    for (let attempt = 1; ; attempt++) {
      record.attempts = attempt;
      let response: Response | undefined;
      try {
        response = await send(request.clone());
        record.networkError = undefined;
      } catch (error) {
        record.networkError = error;
      }
      if (response && !RETRIED_STATUSES.has(response.status)) return response;
      if (attempt >= MAX_ATTEMPTS) {
        if (response) return response;
        throw record.networkError;
      }
      await response?.body?.cancel();
      await timing.sleep(retryDelayMs(attempt, response?.headers.get('retry-after') ?? null, timing.random));
    }
  };
}
