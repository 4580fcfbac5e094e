/**
 * A limit per client address for what needs no key (GET /v1/openapi.json), where no merchant's
 * bucket applies: a token bucket of `burst` requests refilled evenly over `windowSeconds`, kept in
 * the memory of each function instance. So a client spread over several instances may get more
 * than one bucket; every answer states the bucket of the instance that gave it, in the same draft
 * IETF headers as the merchant limit (shared/http/middleware/rate-limit.ts):
 *   RateLimit-Policy: "<policy>";q=<burst>;w=<windowSeconds>
 *   RateLimit: "<policy>";r=<requests left>;t=<seconds until the bucket is full>
 * Pure but for the clock it is given.
 */
export interface AddressLimit {
  policy: string;
  burst: number;
  windowSeconds: number;
  /** Addresses remembered at once; the least recently seen is forgotten first (it gets a full bucket). */
  maxAddresses: number;
}

export type AddressVerdict =
  | { admitted: true; headers: Record<string, string> }
  | { admitted: false; retryAfterSeconds: number; headers: Record<string, string> };

interface Bucket {
  tokens: number;
  at: number;
}

export class AddressRateLimit {
  private readonly buckets = new Map<string, Bucket>();
  private readonly limit: AddressLimit;
  private readonly msPerToken: number;

  constructor(limit: AddressLimit) {
    this.limit = limit;
    this.msPerToken = (limit.windowSeconds * 1000) / limit.burst;
  }

  take(address: string, now: number): AddressVerdict {
    const { burst, policy, windowSeconds } = this.limit;
    const previous = this.buckets.get(address);
    const tokens = previous
      ? Math.min(burst, previous.tokens + (now - previous.at) / this.msPerToken)
      : burst;
    const policyHeader = { 'RateLimit-Policy': `"${policy}";q=${burst};w=${windowSeconds}` };
    if (tokens < 1) {
      const retryAfterSeconds = Math.max(1, Math.ceil(((1 - tokens) * this.msPerToken) / 1000));
      this.remember(address, { tokens, at: now });
      return {
        admitted: false,
        retryAfterSeconds,
        headers: { ...policyHeader, RateLimit: `"${policy}";r=0;t=${retryAfterSeconds}` },
      };
    }
    const left = tokens - 1;
    this.remember(address, { tokens: left, at: now });
    const fullInSeconds = Math.ceil(((burst - left) * this.msPerToken) / 1000);
    return {
      admitted: true,
      headers: { ...policyHeader, RateLimit: `"${policy}";r=${Math.floor(left)};t=${fullInSeconds}` },
    };
  }

  private remember(address: string, bucket: Bucket): void {
    this.buckets.delete(address);
    if (this.buckets.size >= this.limit.maxAddresses) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    this.buckets.set(address, bucket);
  }
}
