/** Runtime configuration read once from the environment (Lambda env vars, or the local server's). */
export type Environment = 'sandbox' | 'production';

export const KEY_PREFIX: Record<Environment, string> = { sandbox: 'pk_test_', production: 'pk_live_' };

/** Requests per second a merchant may sustain, and how many it may send at once after a quiet spell. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

/** Used when the stack sets no default (local runs); lib/config.ts sets one per stage. */
const FALLBACK_RATE_LIMIT: RateLimit = { perSecond: 50, burst: 100 };

export interface RuntimeConfig {
  tableName: string;
  environment: Environment;
  /** Set only locally: the DynamoDB Local endpoint. In AWS the SDK's default endpoint is used. */
  dynamoDbEndpoint: string | undefined;
  region: string;
  /** Per-merchant limit for merchants without their own (DEFAULT_RATE_LIMIT_PER_SECOND / _BURST). */
  defaultRateLimit: RateLimit;
}

export function readRuntimeConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const environment = env.ENVIRONMENT ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new Error(`ENVIRONMENT must be "sandbox" or "production", got "${environment}"`);
  }
  return {
    tableName: env.TABLE_NAME ?? 'abuse-decision-local',
    environment,
    dynamoDbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    defaultRateLimit: validRateLimit({
      perSecond: positiveNumber(env, 'DEFAULT_RATE_LIMIT_PER_SECOND') ?? FALLBACK_RATE_LIMIT.perSecond,
      burst: positiveNumber(env, 'DEFAULT_RATE_LIMIT_BURST') ?? FALLBACK_RATE_LIMIT.burst,
    }),
  };
}

/**
 * A usable limit: a positive rate and a burst of at least one second's worth (a smaller burst
 * would refuse a client that keeps exactly to the rate whenever two requests arrive together).
 */
export function validRateLimit(limit: RateLimit): RateLimit {
  const { perSecond, burst } = limit;
  if (!(Number.isFinite(perSecond) && perSecond > 0 && Number.isInteger(burst) && burst >= 1)) {
    throw new Error(`a rate limit needs perSecond > 0 and an integer burst >= 1, got ${perSecond}/${burst}`);
  }
  if (burst < perSecond) throw new Error(`the burst (${burst}) must be at least perSecond (${perSecond})`);
  return { perSecond, burst };
}

function positiveNumber(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}
