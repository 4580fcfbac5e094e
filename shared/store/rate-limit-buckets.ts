import type { AttributeValue, ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { RateLimit } from '../config.ts';
import { documentClient, tableName, UNMARSHALL_OPTIONS } from './client.ts';
import { keys } from './keys.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';

/**
 * Per-merchant token bucket, shared by every Lambda instance of the environment, kept as GCRA (the
 * generic cell rate algorithm, equivalent to a token bucket of `burst` tokens refilled at
 * `perSecond`): one item holding `tat`, the theoretical arrival time of the next request in epoch
 * microseconds. A request at `now` is admitted when max(tat, now) + interval <= now + burst *
 * interval, and moves `tat` to max(tat, now) + interval.
 *
 * Cost per request: one conditional UpdateItem on that item (1 WCU, ~100 bytes) and no read.
 * DynamoDB update expressions have no max(), so the item is updated in one of two shapes: "idle"
 * (tat <= now: SET tat = now + interval) or "busy" (tat > now: SET tat = tat + interval, which
 * commutes, so concurrent busy updates never conflict). Each instance guesses the shape from the
 * last tat it saw; a wrong guess fails its condition, returns the stored tat (ALL_OLD) and is
 * corrected by a second UpdateItem. A refusal this instance can already prove from the last tat it
 * saw (tat only grows) costs nothing at all.
 *
 * Leases keep the item cool for a large merchant: a write takes `leaseSize` tokens at once (tat
 * moves by that many intervals) and the instance admits that many requests from memory within
 * LEASE_MS. Up to EXACT_UP_TO_PER_SECOND requests/s a write takes one token (exactly the bucket
 * above, at most the 1,000 writes/s one partition takes); above it a lease is perSecond / 100
 * tokens: 200 at 20,000/s, so the item takes about 100 writes/s however many instances run. The cost: tokens an instance leased and did not use within
 * LEASE_MS lapse (under-admission of at most one lease per instance per LEASE_MS), and an
 * instance whose lease is refused asks for a single token before answering 429.
 */
export type BucketVerdict =
  | { admitted: true; remaining: number; resetSeconds: number }
  | { admitted: false; retryAfterSeconds: number };

const TAT = 'tat';
/** An idle bucket is worth nothing after its tat has passed; let TTL remove it an hour later. */
const KEEP_IDLE_BUCKET_SECONDS = 3_600;
/** A guess corrected from ALL_OLD only misses again if other instances move tat across `now`. */
const MAX_ATTEMPTS = 3;
/**
 * How early a token may be taken (µs, at most a tenth of the refill interval): concurrent requests
 * read the clock before they write, in any order, and a request whose reading came a moment before
 * the others' would find the bucket full by those moments and be refused with a token free.
 */
const MAX_CLOCK_SKEW_US = 5_000_000;

/** The last tat each merchant's bucket was seen at by this instance (µs); it only ever grows. */
const lastSeenTat = new Map<string, number>();

/** Limits up to this take one token per write; larger ones lease (see above). */
const EXACT_UP_TO_PER_SECOND = 1_000;
/** Above it, a bucket write per this many requests/s of the limit, at most. */
const LEASES_PER_SECOND = 100;
const LEASE_MS = 1_000;

/** Tokens this instance holds from its last lease, usable until `until` (ms). */
const leases = new Map<string, { tokens: number; until: number; verdict: BucketVerdict }>();
const renewals = new Map<string, Promise<BucketVerdict>>();

/** Tokens one bucket write takes: 1 for ordinary limits, more for large ones, never half the burst. */
export const leaseSize = (limit: RateLimit): number =>
  limit.perSecond <= EXACT_UP_TO_PER_SECOND
    ? 1
    : Math.max(1, Math.min(Math.floor(limit.perSecond / LEASES_PER_SECOND), Math.floor(limit.burst / 2)));

export async function takeToken(
  merchantId: string,
  limit: RateLimit,
  now = Date.now(),
): Promise<BucketVerdict> {
  const size = leaseSize(limit);
  if (size === 1) return reserve(merchantId, limit, now, 1);
  for (;;) {
    const lease = leases.get(merchantId);
    if (lease && lease.tokens > 0 && now < lease.until) {
      lease.tokens--;
      return lease.verdict;
    }
    // One renewal at a time per instance: concurrent requests wait for it and draw from it.
    let renewal = renewals.get(merchantId);
    if (!renewal) {
      renewal = reserve(merchantId, limit, now, size).then((verdict) => {
        if (verdict.admitted) leases.set(merchantId, { tokens: size, until: now + LEASE_MS, verdict });
        return verdict;
      });
      renewals.set(merchantId, renewal);
      void renewal.finally(() => renewals.delete(merchantId)).catch(() => {});
    }
    // A refused lease may still leave room for one request.
    if (!(await renewal).admitted) return reserve(merchantId, limit, now, 1);
  }
}

/** Takes `cost` tokens from the shared bucket in one conditional write. */
async function reserve(
  merchantId: string,
  limit: RateLimit,
  now: number,
  cost: number,
): Promise<BucketVerdict> {
  const interval = Math.max(1, Math.round(1e6 / limit.perSecond));
  const step = cost * interval;
  const nowUs = now * 1_000;
  const room = (limit.burst - cost) * interval;
  const latestStart = nowUs + room + Math.min(MAX_CLOCK_SKEW_US, Math.floor(interval / 10));
  // The bucket's state is told as of the answer, not of `now`: a request that read the clock before
  // another but wrote after it would otherwise count the other's token against a bucket it saw
  // earlier, and two answers would both say none is left.
  const verdictAt = (tat: number): BucketVerdict => {
    const answeredUs = Math.max(nowUs, Date.now() * 1_000);
    return {
      admitted: true,
      remaining: Math.min(
        limit.burst,
        Math.max(0, Math.floor((answeredUs + limit.burst * interval - tat) / interval)),
      ),
      resetSeconds: Math.max(0, Math.ceil((tat - answeredUs) / 1e6)),
    };
  };
  // The wait, too, is told as of the answer: a request that read the clock before the others would
  // otherwise be told the moments between the readings on top of the bucket's wait.
  const refusalAt = (tat: number): BucketVerdict => ({
    admitted: false,
    retryAfterSeconds: Math.max(1, Math.ceil((tat - Math.max(nowUs, Date.now() * 1_000) - room) / 1e6)),
  });

  let known = lastSeenTat.get(merchantId);
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    if (known !== undefined && known > latestStart) return refusalAt(known);
    const busy = known !== undefined && known > nowUs;
    try {
      const { Attributes } = await documentClient.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keys.rateLimitBucket(merchantId),
          ...(busy
            ? {
                UpdateExpression: 'SET #tat = #tat + :step, #expires = :expires',
                ConditionExpression: '#tat > :now AND #tat <= :latestStart',
                ExpressionAttributeValues: {
                  ':step': step,
                  ':now': nowUs,
                  ':latestStart': latestStart,
                  ':expires': expiry(latestStart + step),
                },
              }
            : {
                UpdateExpression: 'SET #tat = :next, #expires = :expires',
                ConditionExpression: 'attribute_not_exists(#tat) OR #tat <= :now',
                ExpressionAttributeValues: {
                  ':next': nowUs + step,
                  ':now': nowUs,
                  ':expires': expiry(nowUs + step),
                },
              }),
          ExpressionAttributeNames: { '#tat': TAT, '#expires': TTL_ATTRIBUTE },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const tat = Number(Attributes?.[TAT]);
      remember(merchantId, tat);
      return verdictAt(tat);
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      const returned = (error as ConditionalCheckFailedException).Item;
      const stored = returned
        ? unmarshall(returned as Record<string, AttributeValue>, UNMARSHALL_OPTIONS)[TAT]
        : undefined;
      if (typeof stored === 'number') {
        known = stored;
        remember(merchantId, stored);
      } else {
        // Without the stored tat the other shape is the only one left to try.
        known = busy ? nowUs : nowUs + 1;
      }
    }
  }
  // The last race lost may have shown the bucket full: then its wait is the bucket's, not a second.
  if (known !== undefined && known > latestStart) return refusalAt(known);
  // Three corrected guesses all lost races: the merchant is sending a crowd of requests at once.
  return { admitted: false, retryAfterSeconds: 1 };
}

function remember(merchantId: string, tat: number): void {
  if (Number.isFinite(tat) && tat > (lastSeenTat.get(merchantId) ?? 0)) lastSeenTat.set(merchantId, tat);
}

const expiry = (tatUs: number) => Math.ceil(tatUs / 1e6) + KEEP_IDLE_BUCKET_SECONDS;
