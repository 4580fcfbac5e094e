import { type RateLimit, readRuntimeConfig, validRateLimit } from '../config.ts';
import { ApiError } from '../errors.ts';
import {
  outsideRequestScope,
  runBehindWriteGate,
  type WriteGate,
  WriteGateClosedError,
} from '../request-scope.ts';
import { type BucketVerdict, takeToken } from '../store/rate-limit-buckets.ts';
import type { ApiContext } from './api-context.ts';

/**
 * The per-merchant rate limit (docs/decisions.md: requests per second with a burst; 429
 * `rate_limited` with Retry-After and RateLimit headers), as a step of every endpoint's handler:
 *
 *   withinRateLimit(context, work)
 *     1. runs `work` (read the body, validate, the use case) behind the request's write gate: the
 *        merchant's token is taken by one conditional UpdateItem of its bucket
 *        (store/rate-limit-buckets.ts) sent together with the request's first DynamoDB call, and
 *        every write of the request waits for it (the gate is enforced in store/client.ts);
 *     2. waits for the verdict (a request that made no DynamoDB call takes its token now);
 *     3. over the limit, answers 429, whatever `work` did (it can have read, never written);
 *        admitted, answers what `work` answered, with the RateLimit headers.
 *
 * Why beside the work rather than before it or inside its transaction: before it would add a
 * sequential round trip to every request; inside the transaction, every request of a merchant would
 * write one hot item in TransactWriteItems and conflict with the others, and refused or read-only
 * requests (replays, 4xx) would go uncounted. Cost per request: one UpdateItem (1 WCU), no round
 * trip of its own when the request reads anyway.
 *
 * Headers follow draft-ietf-httpapi-ratelimit-headers-11 (sections 3 and 4; the shape is unchanged
 * since -09): the bucket is stated as a quota of `burst` requests per the seconds it takes to refill,
 *   RateLimit-Policy: "merchant";q=100;w=2
 *   RateLimit: "merchant";r=<requests left now>;t=<seconds until the bucket is full again>
 * on every answer of an admitted request, and on a 429 with r=0 and t equal to Retry-After.
 */
const POLICY = '"merchant"';
const { defaultRateLimit } = readRuntimeConfig();

export async function withinRateLimit<T>(context: ApiContext, work: () => Promise<T>): Promise<T> {
  const merchant = context.principal!.merchant;
  const admission = new Admission(merchant.merchantId, limitOf(merchant.rateLimit));
  const outcome = await runBehindWriteGate(admission, work).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const verdict = await admission.verdict();
  // Over the limit (or unable to tell) wins over whatever else went wrong: the request is refused.
  if (verdict.kind !== 'admitted') throw verdict.error;
  Object.assign(context.responseHeaders, verdict.headers);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

type Verdict =
  | { kind: 'admitted'; headers: Record<string, string> }
  | { kind: 'refused' | 'failed'; error: Error };

/** One request's token: taken at most once, its verdict shared by the write gate and the answer. */
class Admission implements WriteGate {
  private pending: Promise<Verdict> | undefined;
  private readonly merchantId: string;
  private readonly limit: RateLimit;

  constructor(merchantId: string, limit: RateLimit) {
    this.merchantId = merchantId;
    this.limit = limit;
  }

  start = (): void => {
    void this.verdict();
  };

  ready = async (): Promise<void> => {
    const verdict = await this.verdict();
    if (verdict.kind === 'refused') throw verdict.error;
    // The answer is the check's own failure (withinRateLimit gives it); the store must not retry it.
    if (verdict.kind === 'failed') throw new WriteGateClosedError(verdict.error);
  };

  verdict(): Promise<Verdict> {
    // Outside the request scope, so the bucket's own write does not wait for this very gate.
    this.pending ??= outsideRequestScope(() => takeToken(this.merchantId, this.limit)).then(
      (bucket) => this.toVerdict(bucket),
      (error: unknown) => ({
        kind: 'failed' as const,
        error: error instanceof Error ? error : new Error(String(error)),
      }),
    );
    return this.pending;
  }

  private toVerdict(bucket: BucketVerdict): Verdict {
    const policy = `${POLICY};q=${this.limit.burst};w=${refillSeconds(this.limit)}`;
    if (bucket.admitted) {
      return {
        kind: 'admitted',
        headers: {
          'RateLimit-Policy': policy,
          RateLimit: `${POLICY};r=${bucket.remaining};t=${bucket.resetSeconds}`,
        },
      };
    }
    const retryAfter = String(bucket.retryAfterSeconds);
    return {
      kind: 'refused',
      error: new ApiError(
        'rate_limited',
        `Too many requests: this account may send ${this.limit.perSecond} per second with bursts of ` +
          `${this.limit.burst}. Retry after ${retryAfter} s.`,
        {
          headers: {
            'Retry-After': retryAfter,
            'RateLimit-Policy': policy,
            RateLimit: `${POLICY};r=0;t=${retryAfter}`,
          },
        },
      ),
    };
  }
}

/** The merchant's own limit; one that was stored broken (not through the admin CLI) falls back. */
function limitOf(own: RateLimit | undefined): RateLimit {
  if (!own) return defaultRateLimit;
  try {
    return validRateLimit(own);
  } catch {
    return defaultRateLimit;
  }
}

/** Seconds an empty bucket takes to refill: the window of the advertised quota (at least 1). */
const refillSeconds = (limit: RateLimit) => Math.max(1, Math.ceil(limit.burst / limit.perSecond));
