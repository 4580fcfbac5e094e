import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type RateLimit, readRuntimeConfig, validRateLimit } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import {
  currentRequestScope,
  outsideRequestScope,
  type WriteGate,
  WriteGateClosedError,
} from '../../request-scope.ts';
import { type BucketVerdict, takeToken } from '../../store/rate-limit-buckets.ts';
import type { ApiContext } from '../api-context.ts';

/**
 * Per-merchant rate limit (decisions.md: requests per second with a burst; 429 `rate_limited` with
 * Retry-After and RateLimit headers). Every authenticated request to an endpoint takes one token
 * from the merchant's bucket in DynamoDB (shared/store/rate-limit-buckets.ts), so the limit holds
 * across all Lambda instances.
 *
 * Why the bucket's UpdateItem runs beside the use case instead of before it or inside its
 * transaction: before it would add a sequential round trip to every request (the warm paths are
 * held to 3, and returns already use 3); inside the transaction, every request of a merchant would
 * write one hot item in TransactWriteItems and conflict with each other (TransactionConflict), and
 * refused or read-only requests (replays, 4xx) would go uncounted. So the middleware installs a
 * write gate: the request's first DynamoDB call starts the UpdateItem alongside it, and every write
 * of the request waits for the verdict (shared/store/client.ts). A refused request may have read,
 * never written: it answers 429. Cost per request: one UpdateItem (1 WCU), no extra sequential
 * round trip when the request reads anyway; a request that never reaches DynamoDB (a 400 or 422)
 * pays one round trip for its token at the end.
 *
 * Headers follow draft-ietf-httpapi-ratelimit-headers-11 (sections 3 and 4; the shape is unchanged
 * since -09): the bucket is stated as a quota of `burst` requests per the seconds it takes to refill,
 *   RateLimit-Policy: "merchant";q=100;w=2
 *   RateLimit: "merchant";r=<requests left now>;t=<seconds until the bucket is full again>
 * on every answer of an admitted request, and on a 429 with r=0 and t equal to Retry-After.
 */
const POLICY = '"merchant"';
const { defaultRateLimit } = readRuntimeConfig();

export function rateLimit(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext> {
  const admissions = new WeakMap<ApiContext, Admission>();
  return {
    before: (request) => {
      const merchant = request.context.principal!.merchant;
      const admission = new Admission(merchant.merchantId, limitOf(merchant.rateLimit));
      admissions.set(request.context, admission);
      const scope = currentRequestScope();
      if (scope) scope.gate = admission;
      else admission.start(); // never without a scope in practice: httpHandler always opens one
    },
    after: async (request) => {
      const admission = admissions.get(request.context);
      if (!admission) return;
      // A request that sent no DynamoDB call starts its check only now.
      Object.assign(request.context.responseHeaders, await admission.admittedHeaders());
    },
    onError: async (request) => {
      const admission = admissions.get(request.context);
      if (!admission) return;
      const verdict = await admission.verdict();
      // Over the limit (or unable to tell) wins over whatever else went wrong: the request is refused.
      if (verdict.kind !== 'admitted') request.error = verdict.error;
      else Object.assign(request.context.responseHeaders, verdict.headers);
    },
  };
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
    // The answer is the check's own failure (onError puts it back); the store must not retry it.
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

  async admittedHeaders(): Promise<Record<string, string>> {
    const verdict = await this.verdict();
    if (verdict.kind !== 'admitted') throw verdict.error;
    return verdict.headers;
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
