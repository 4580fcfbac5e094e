import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Environment, readRuntimeConfig } from '../config.ts';
import { callSecretsManager, getSecretString, SecretsManagerError } from '../secrets-manager.ts';

/**
 * Each merchant's digest key: the HMAC key its identity digests are made under (identity-digests.ts),
 * so the same e-mail gives different digests at two merchants and a leaked table cannot be reversed
 * by enumerating values. In AWS one Secrets Manager secret per merchant, named
 * `abuse-decision/<stage>/digest-keys/<merchant id>`, read once per Lambda instance and merchant and kept in
 * memory (a warm request pays nothing); created by `admin merchant create`, deleted by offboarding,
 * after which nothing left in a backup can be linked to a value. Locally one file per merchant under
 * DIGEST_KEY_DIR (default `.data/digest-keys`), generated on first use.
 */
const KEY_BYTES = 32;
const keys = new Map<string, Promise<Buffer>>();

const isSecretsManager = (error: unknown, type: string) =>
  error instanceof SecretsManagerError && error.type === type;
/** Where a stage's digest keys live in Secrets Manager: one secret per merchant under it. */
export const digestKeySecretPrefix = (stage: Environment) => `abuse-decision/${stage}/digest-keys/`;

/**
 * Secrets Manager in AWS (the functions are told the prefix; the admin CLI, run against AWS, takes
 * its stage's); a local directory when the table is DynamoDB Local.
 */
function secretPrefix(): string | undefined {
  if (process.env.DIGEST_KEY_SECRET_PREFIX) return process.env.DIGEST_KEY_SECRET_PREFIX;
  const { dynamoDbEndpoint, environment } = readRuntimeConfig();
  return dynamoDbEndpoint || process.env.DIGEST_KEY_DIR ? undefined : digestKeySecretPrefix(environment);
}
const localDir = () => process.env.DIGEST_KEY_DIR ?? join(process.cwd(), '.data', 'digest-keys');
const localFile = (merchantId: string) => join(localDir(), encodeURIComponent(merchantId));

class DigestKeyMissingError extends Error {
  constructor(merchantId: string) {
    super(`Merchant ${merchantId} has no digest key`);
    this.name = 'DigestKeyMissingError';
  }
}

/** The merchant's digest key, read once per process (a failed read is tried again next time). */
export function readDigestKey(merchantId: string): Promise<Buffer> {
  let key = keys.get(merchantId);
  if (!key) {
    key = loadKey(merchantId).catch((error: unknown) => {
      keys.delete(merchantId);
      throw error;
    });
    keys.set(merchantId, key);
  }
  return key;
}

async function loadKey(merchantId: string): Promise<Buffer> {
  const prefix = secretPrefix();
  if (prefix) {
    try {
      return Buffer.from(await getSecretString(`${prefix}${merchantId}`), 'base64url');
    } catch (error) {
      throw isSecretsManager(error, 'ResourceNotFoundException')
        ? new DigestKeyMissingError(merchantId)
        : error;
    }
  }
  try {
    return await readFile(localFile(merchantId));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return createLocalKey(merchantId);
  }
}

/** Locally a key is made on first use; two processes racing to make it read the one that won. */
async function createLocalKey(merchantId: string): Promise<Buffer> {
  await mkdir(localDir(), { recursive: true, mode: 0o700 });
  try {
    await writeFile(localFile(merchantId), randomBytes(KEY_BYTES), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFile(localFile(merchantId));
}

/** Makes a new merchant's key (admin `merchant create`); a key that exists is kept. */
export async function createDigestKey(merchantId: string): Promise<void> {
  const prefix = secretPrefix();
  if (!prefix) {
    await readDigestKey(merchantId);
    return;
  }
  try {
    await callSecretsManager('CreateSecret', {
      Name: `${prefix}${merchantId}`,
      Description: `Identity digest key of merchant ${merchantId}`,
      SecretString: randomBytes(KEY_BYTES).toString('base64url'),
    });
  } catch (error) {
    if (!isSecretsManager(error, 'ResourceExistsException')) throw error;
  }
}

/**
 * Deletes the merchant's key for good (offboarding): its digests, in the table or in any backup, can
 * no longer be tied to a value. Idempotent.
 */
export async function deleteDigestKey(merchantId: string): Promise<void> {
  keys.delete(merchantId);
  const prefix = secretPrefix();
  if (!prefix) {
    await rm(localFile(merchantId), { force: true });
    return;
  }
  try {
    await callSecretsManager('DeleteSecret', {
      SecretId: `${prefix}${merchantId}`,
      ForceDeleteWithoutRecovery: true,
    });
  } catch (error) {
    if (!isSecretsManager(error, 'ResourceNotFoundException')) throw error;
  }
}
