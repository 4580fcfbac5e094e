import { getSecretString } from '../secrets-manager.ts';

/**
 * The platform secret network keys are made under. Locally (and in tests) NETWORK_HASH_SECRET
 * holds it; in AWS the stack's Secrets Manager secret, named by NETWORK_SECRET_ARN, is read once per
 * Lambda instance, on the first request that needs it: a non-member's requests never pay for it.
 * Rotating it is a fresh start: reputation under the old secret is never found again and expires.
 */
let secret: Promise<Buffer> | undefined;

export function readNetworkSecret(): Promise<Buffer> {
  secret ??= loadSecret().catch((error: unknown) => {
    secret = undefined;
    throw error;
  });
  return secret;
}

async function loadSecret(): Promise<Buffer> {
  const local = process.env.NETWORK_HASH_SECRET;
  if (local) return Buffer.from(local, 'utf8');
  const arn = process.env.NETWORK_SECRET_ARN;
  if (!arn) throw new Error('Neither NETWORK_HASH_SECRET nor NETWORK_SECRET_ARN is set');
  return Buffer.from(await getSecretString(arn), 'utf8');
}
