import { createHash, createHmac } from 'node:crypto';
import { readRuntimeConfig } from './config.ts';

/**
 * Secrets Manager's JSON API, signed (AWS Signature Version 4) with the function's own credentials,
 * which Lambda puts in the environment: one small request, no SDK client bundled into every
 * function. The network's secret and the merchants' digest keys are read through it.
 */
type Action = 'GetSecretValue' | 'CreateSecret' | 'DeleteSecret';

/** Secrets Manager's refusal, with its error type (`ResourceNotFoundException`, ...). */
export class SecretsManagerError extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.name = 'SecretsManagerError';
    this.type = type;
  }
}

export async function callSecretsManager(
  action: Action,
  request: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { region } = readRuntimeConfig();
  const host = `secretsmanager.${region}.amazonaws.com`;
  const body = JSON.stringify(request);
  const response = await fetch(`https://${host}/`, {
    method: 'POST',
    headers: signedHeaders(host, region, action, body, new Date()),
    body,
  });
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) return answer;
  const type =
    String(answer.__type ?? '')
      .split('#')
      .at(-1) ?? '';
  throw new SecretsManagerError(type, `Secrets Manager answered ${response.status} ${type} to ${action}`);
}

/** A secret's string value. */
export async function getSecretString(secretId: string): Promise<string> {
  const { SecretString } = await callSecretsManager('GetSecretValue', { SecretId: secretId });
  if (typeof SecretString !== 'string' || !SecretString)
    throw new Error(`The secret ${secretId} has no string value`);
  return SecretString;
}

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

function signedHeaders(
  host: string,
  region: string,
  action: Action,
  body: string,
  now: Date,
): Record<string, string> {
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
    'x-amz-target': `secretsmanager.${action}`,
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
