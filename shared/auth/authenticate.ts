import { timingSafeEqual } from 'node:crypto';
import { type Environment, KEY_PREFIX } from '../config.ts';
import type { EndpointFeature, KeyScope } from '../contract/endpoints.ts';
import { ApiError } from '../errors.ts';
import {
  type ApiKeyRecord,
  findApiKeyByHash,
  getMerchant,
  hashApiKey,
  type Merchant,
} from '../store/merchants.ts';
import { KEY_PATTERN } from './credential-format.ts';

/** Who is calling: the merchant behind a valid, active API key. */
export interface Principal {
  merchant: Merchant;
  key: ApiKeyRecord;
}

/**
 * A revoked key or a suspended merchant takes effect within this long on every warm instance: the
 * longest a cached lookup is trusted. docs/decisions.md promises a minute; half of it is margin for a
 * request in flight (at most its 5 s budget) and a slow instance. The lookup itself is a strongly
 * consistent read, so no replication lag adds to this bound.
 */
export const KEY_REVOCATION_BOUND_MS = 30_000;

/**
 * Hashes no key matched, remembered per instance so a flood repeating unknown keys costs one read per
 * key and instance, not one per request. Bounded: past this many, the oldest is forgotten first.
 * Their lifetime is the revocation bound's: a key is 40 random characters shown only once its item is
 * written, and the lookup is strongly consistent, so a request can name a key before it exists only
 * by guessing it; should that ever happen, the new key is refused for at most this long per instance.
 */
const UNKNOWN_KEYS_REMEMBERED = 10_000;

interface CachedPrincipal {
  principal: Principal;
  expiresAt: number;
}

const cache = new Map<string, CachedPrincipal>();
const unknownUntil = new Map<string, number>();
// API_KEY_CACHE_MS may only shorten the cache's lifetime, never lengthen it past the bound.
const cacheTtlMs = Math.min(
  Number(process.env.API_KEY_CACHE_MS ?? KEY_REVOCATION_BOUND_MS),
  KEY_REVOCATION_BOUND_MS,
);

/** What is being called: the checks after the key is found depend on it. */
export interface CalledEndpoint {
  environment: Environment;
  /** The endpoint's name; undefined for the 404/405 fallback, which any active key may reach. */
  endpoint: string | undefined;
  /** The registry definition's scope; undefined for the fallback. */
  scope: KeyScope | undefined;
  requiredFeature?: EndpointFeature;
}

/**
 * Checks the Authorization header in the order docs/decisions.md gives: presence, format, environment,
 * existence and revocation, merchant status, key scope, endpoint feature.
 */
export async function authenticate(
  authorization: string | undefined,
  request: CalledEndpoint,
  now = Date.now(),
): Promise<Principal> {
  const apiKey = authorization?.trim().replace(/^Bearer\s+/i, '');
  if (!apiKey) throw new ApiError('unauthenticated', 'The Authorization header with an API key is required.');
  if (!KEY_PATTERN.test(apiKey)) throw new ApiError('invalid_api_key', 'The API key is malformed.');
  if (!apiKey.startsWith(KEY_PREFIX[request.environment])) {
    throw new ApiError(
      'environment_mismatch',
      `This is the ${request.environment} environment; use a key starting with ${KEY_PREFIX[request.environment]}.`,
    );
  }

  return admitKey(hashApiKey(apiKey), request, now);
}

/**
 * The checks after the key is known, shared by API keys and console sessions (which carry their
 * key's hash): existence and revocation, environment, merchant status, scope, endpoint, feature.
 */
export async function admitKey(
  keyHash: string,
  request: CalledEndpoint,
  now = Date.now(),
): Promise<Principal> {
  const principal = await loadPrincipal(keyHash, now);
  if (
    !principal ||
    !sameHash(principal.key.keyHash, keyHash) ||
    principal.key.status !== 'active' ||
    principal.key.environment !== request.environment
  ) {
    throw new ApiError('invalid_api_key', 'The API key is unknown or revoked.');
  }
  if (principal.merchant.status !== 'active')
    throw new ApiError('forbidden', 'The merchant account is suspended.');
  if (request.scope && principal.key.scope !== request.scope) {
    throw new ApiError(
      'forbidden',
      `This is a ${principal.key.scope} key; ${request.endpoint} needs a ${request.scope} key.`,
    );
  }
  if (request.endpoint && principal.key.endpoints && !principal.key.endpoints.includes(request.endpoint)) {
    throw new ApiError('forbidden', `This API key is not allowed to call the ${request.endpoint} endpoint.`);
  }
  if (request.requiredFeature === 'accountUpdates' && !principal.merchant.accountUpdatesEnabled) {
    throw new ApiError(
      'endpoint_not_enabled',
      'The account-update endpoint is not enabled for this account.',
    );
  }
  return principal;
}

/**
 * The stored hash against the computed one in constant time. The lookup itself is by hash, so this
 * is defence in depth: no comparison of key material ever exits early on the first differing byte.
 */
function sameHash(stored: string, computed: string): boolean {
  const a = Buffer.from(stored, 'hex');
  const b = Buffer.from(computed, 'hex');
  return a.length === 32 && b.length === 32 && timingSafeEqual(a, b);
}

/** Found keys and unknown hashes are both trusted for the cache's lifetime, each per instance. */
async function loadPrincipal(keyHash: string, now: number): Promise<Principal | undefined> {
  const cached = cache.get(keyHash);
  if (cached && cached.expiresAt > now) return cached.principal;
  cache.delete(keyHash);
  if ((unknownUntil.get(keyHash) ?? 0) > now) return undefined;
  unknownUntil.delete(keyHash);
  const key = await findApiKeyByHash(keyHash);
  if (!key) {
    rememberUnknown(keyHash, now);
    return undefined;
  }
  const merchant = await getMerchant(key.merchantId);
  if (!merchant) return undefined;
  const principal = { key, merchant };
  cache.set(keyHash, { principal, expiresAt: now + cacheTtlMs });
  return principal;
}

function rememberUnknown(keyHash: string, now: number): void {
  if (unknownUntil.size >= UNKNOWN_KEYS_REMEMBERED) {
    const oldest = unknownUntil.keys().next().value;
    if (oldest !== undefined) unknownUntil.delete(oldest);
  }
  unknownUntil.set(keyHash, now + cacheTtlMs);
}
