import { createHmac } from 'node:crypto';
import type { IdentityRef } from '../identity/identities.ts';
import { readNetworkSecret } from './network-secret.ts';

/**
 * An identity's network key: HMAC-SHA256 under the platform's network secret of its kind and
 * digest (itself SHA-256 of the normalised value), base64url. Without the secret no one can tell
 * which value a key stands for, or link it to a merchant's own identity items.
 */
export function networkKeyOf(secret: Buffer, ref: IdentityRef): string {
  return createHmac('sha256', secret).update(`${ref.kind}:${ref.digest}`).digest('base64url');
}

/** The network keys of some identities, reading the secret once per process (only when asked). */
export async function networkKeysOf(refs: readonly IdentityRef[]): Promise<string[]> {
  if (refs.length === 0) return [];
  const secret = await readNetworkSecret();
  return refs.map((ref) => networkKeyOf(secret, ref));
}
