import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { readRuntimeConfig } from '../config.ts';

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

/** Secrets Manager's GetSecretValue, signed with the function's own credentials. */
async function getSecretString(secretId: string): Promise<string> {
  const { region } = readRuntimeConfig();
  const host = `secretsmanager.${region}.amazonaws.com`;
  const signer = new SignatureV4({
    service: 'secretsmanager',
    region,
    credentials: defaultProvider(),
    sha256: Hash.bind(null, 'sha256'),
  });
  const body = JSON.stringify({ SecretId: secretId });
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'https:',
    hostname: host,
    path: '/',
    headers: {
      host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': 'secretsmanager.GetSecretValue',
    },
    body,
  });
  const response = await fetch(`https://${host}/`, {
    method: 'POST',
    headers: signed.headers as Record<string, string>,
    body,
  });
  if (!response.ok) throw new Error(`Secrets Manager answered ${response.status}`);
  const { SecretString } = (await response.json()) as { SecretString?: string };
  if (!SecretString) throw new Error('The network secret has no string value');
  return SecretString;
}
