import { createHash, createHmac } from 'node:crypto';
import type { DigestIdentity, IdentityKind } from '../identity/identities.ts';
import { readNetworkSecret } from '../network/network-secret.ts';
import { isNetworkKind } from '../scoring/network-reputation.ts';
import { readDigestKey } from './digest-keys.ts';

/**
 * The one place identity digests are made. An identity's digest at a merchant is
 * `HMAC-SHA256(merchant's digest key, sha)`, where `sha` is SHA-256 of `<kind>:<normalised value>`
 * (both base64url, 22 characters): the same e-mail gives different digests at two merchants, and
 * without the merchant's key a digest cannot be found by enumerating values (a card's
 * BIN:last4:expiry is small enough to enumerate). Keying `sha` rather than the value lets a
 * re-keying job turn digests stored before the keys into keyed ones without the values
 * (docs/architecture.md, Identity digests).
 * For a network member, shared kinds also carry their network key, `HMAC-SHA256(network secret,
 * "<kind>:<sha>")`, computed here, at event time (docs/network.md).
 */
const DIGEST_CHARS = 22;

const unkeyedDigest = (kind: IdentityKind, normalized: string) =>
  createHash('sha256').update(`${kind}:${normalized}`).digest('base64url').slice(0, DIGEST_CHARS);

/** Digests a merchant's identities under its key (and the network's secret, for a member). */
export function keyedDigests(key: Buffer, networkSecret?: Buffer): DigestIdentity {
  return (kind, normalized) => {
    const sha = unkeyedDigest(kind, normalized);
    const digest = createHmac('sha256', key).update(sha).digest('base64url').slice(0, DIGEST_CHARS);
    return networkSecret && isNetworkKind(kind)
      ? { kind, digest, networkKey: networkKeyOf(networkSecret, kind, sha) }
      : { kind, digest };
  };
}

/**
 * How a merchant's identities are digested: the function every event, list entry, import line and
 * privacy request digests identifiers with (normalised first, as shared/identity/identities.ts
 * does). The key is read once per process; a member's digests carry network keys.
 */
export async function identityDigests(
  merchantId: string,
  options: { network?: boolean } = {},
): Promise<DigestIdentity> {
  const [key, networkSecret] = await Promise.all([
    readDigestKey(merchantId),
    options.network ? readNetworkSecret() : undefined,
  ]);
  return keyedDigests(key, networkSecret);
}

/**
 * An identity's network key: HMAC-SHA256 under the platform's network secret of its kind and
 * unkeyed digest, base64url. Without the secret no one can tell which value a key stands for.
 */
function networkKeyOf(secret: Buffer, kind: IdentityKind, sha: string): string {
  return createHmac('sha256', secret).update(`${kind}:${sha}`).digest('base64url');
}
