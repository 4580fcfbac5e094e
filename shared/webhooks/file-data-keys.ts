import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { aesOpen, aesSeal } from './aes-gcm.ts';
import type { EncryptionContext, NewDataKey } from './data-keys.ts';

/**
 * The local stand-in for KMS (WEBHOOK_SECRETS_KEY_FILE, `.data/webhook-secrets.key` under
 * `npm start`): a 256-bit master key in a file, made on first use, that wraps each data key the way
 * KMS would (AES-256-GCM, the encryption context as associated data). Real encryption on disk, so
 * local mode and the tests store exactly what AWS stores; never used in AWS.
 */
const masters = new Map<string, Buffer>();

function masterKey(path: string): Buffer {
  let key = masters.get(path);
  if (!key) {
    key = readOrCreateKey(path);
    masters.set(path, key);
  }
  return key;
}

export async function fileGenerateDataKey(path: string, context: EncryptionContext): Promise<NewDataKey> {
  const plaintext = randomBytes(32);
  return { plaintext, encrypted: aesSeal(masterKey(path), plaintext, context) };
}

export async function fileDecryptDataKey(
  path: string,
  encrypted: Buffer,
  context: EncryptionContext,
): Promise<Buffer> {
  return aesOpen(masterKey(path), encrypted, context);
}

/** Made atomically (written aside, then linked): processes starting together agree on one key. */
function readOrCreateKey(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(path), { recursive: true });
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(aside, randomBytes(32), { mode: 0o600 });
  try {
    linkSync(aside, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(aside, { force: true });
  }
  return readFileSync(path);
}
