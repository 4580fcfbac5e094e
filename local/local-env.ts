import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Environment for running the handlers outside Lambda. Must be applied before any shared/ module is
 * imported, because the DynamoDB client and config are built at module scope.
 */
export const LOCAL_TABLE_NAME = 'abuse-decision-local';

/**
 * The keys of the data under `dataDir` (DATA_DIR): each merchant's identity digest key, generated on
 * its first event, and the network's keyed-hash secret (docs/network.md), generated once. `npm start`
 * and the admin CLI take them from the same DATA_DIR (or the same NETWORK_HASH_SECRET and
 * DIGEST_KEY_DIR when set), so both digest a value alike.
 */
export function localKeys(dataDir: string): Record<string, string> {
  const secretFile = join(dataDir, 'network-secret');
  if (!process.env.NETWORK_HASH_SECRET && !existsSync(secretFile)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(secretFile, randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  return {
    NETWORK_HASH_SECRET: process.env.NETWORK_HASH_SECRET ?? readFileSync(secretFile, 'utf8').trim(),
    DIGEST_KEY_DIR: process.env.DIGEST_KEY_DIR ?? join(dataDir, 'digest-keys'),
  };
}

/**
 * Where `npm start` serves its S3 stand-in (exports), so the admin CLI, a separate process, writes
 * the files the server's links point at.
 */
export const localExportsBucket = () => ({
  port: Number(process.env.S3_PORT ?? 8001),
  bucket: 'local-exports',
});

export function applyLocalEnvironment(
  dynamoDbEndpoint: string,
  overrides: Record<string, string> = {},
): void {
  const defaults: Record<string, string> = {
    DYNAMODB_ENDPOINT: dynamoDbEndpoint,
    TABLE_NAME: LOCAL_TABLE_NAME,
    ENVIRONMENT: 'sandbox',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    POWERTOOLS_SERVICE_NAME: 'abuse-decision',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'WARN',
    // The local stand-in for the environment's KMS key (shared/webhooks/file-data-keys.ts): one per
    // checkout, like an account's key, so `npm start` (whatever its DATA_DIR), the admin CLI and the
    // tests seal and open with the same one.
    WEBHOOK_SECRETS_KEY_FILE: join(import.meta.dirname, '..', '.data', 'webhook-secrets.key'),
  };
  for (const [name, value] of Object.entries({ ...defaults, ...overrides })) {
    if (
      name === 'DYNAMODB_ENDPOINT' ||
      name === 'TABLE_NAME' ||
      process.env[name] === undefined ||
      name in overrides
    ) {
      process.env[name] = value;
    }
  }
}
