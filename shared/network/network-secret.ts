import { createHash, createHmac } from 'node:crypto';
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

/**
 * Secrets Manager's GetSecretValue, signed (AWS Signature Version 4) with the function's own
 * credentials, which Lambda puts in the environment: one small request, no SDK client bundled.
 */
async function getSecretString(secretId: string): Promise<string> {
  const { region } = readRuntimeConfig();
  const host = `secretsmanager.${region}.amazonaws.com`;
  const body = JSON.stringify({ SecretId: secretId });
  const response = await fetch(`https://${host}/`, {
    method: 'POST',
    headers: signedHeaders(host, region, body, new Date()),
    body,
  });
  if (!response.ok) throw new Error(`Secrets Manager answered ${response.status}`);
  const { SecretString } = (await response.json()) as { SecretString?: string };
  if (!SecretString) throw new Error('The network secret has no string value');
  return SecretString;
}

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

function signedHeaders(host: string, region: string, body: string, now: Date): Record<string, string> {
  const accessKey = process.env.AWS_ACCESS_KEY_ID ?? '';
  const secretKey = process.env.AWS_SECRET_ACCESS_KEY ?? '';
  const token = process.env.AWS_SESSION_TOKEN;
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.1',
    host,
    'x-amz-date': amzDate,
    ...(token ? { 'x-amz-security-token': token } : {}),
    'x-amz-target': 'secretsmanager.GetSecretValue',
  };
  const names = Object.keys(headers).sort();
  const canonical = [
    'POST',
    '/',
    '',
    ...names.map((name) => `${name}:${headers[name]}`),
    '',
    names.join(';'),
    sha256(body),
  ].join('\n');
  const scope = `${day}/${region}/secretsmanager/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${secretKey}`, day), region), 'secretsmanager'),
    'aws4_request',
  );
  const signature = createHmac('sha256', signingKey).update(toSign).digest('hex');
  const { host: _host, ...sent } = headers;
  return {
    ...sent,
    authorization: `AWS4-HMAC-SHA256 Credential=${accessKey}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`,
  };
}
