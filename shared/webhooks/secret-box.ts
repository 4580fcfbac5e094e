import { aesOpen, aesSeal } from './aes-gcm.ts';
import type { EncryptionContext, NewDataKey } from './data-keys.ts';
import { fileDecryptDataKey, fileGenerateDataKey } from './file-data-keys.ts';
import { kmsDecryptDataKey, kmsGenerateDataKey } from './kms-data-keys.ts';

/**
 * Webhook signing secrets at rest: envelope encryption, one data key per secret, that key kept only
 * encrypted by the environment's KMS key (locally: file-data-keys.ts), both bound to the endpoint
 * (merchant and webhook id). A secret is sealed where it is made and shown once (creation,
 * rotation); it is opened only where it signs (the webhook worker, the admin CLI's test sends).
 */
export interface SealedSecret {
  /** The data key, encrypted by the environment's key (base64). */
  key: string;
  /** The secret under the data key: iv, tag and ciphertext (base64). */
  box: string;
}

export interface SecretOwner {
  merchantId: string;
  webhookId: string;
}

const contextOf = ({ merchantId, webhookId }: SecretOwner): EncryptionContext => ({
  purpose: 'webhook-signing-secret',
  merchantId,
  webhookId,
});

/** Where the environment's key is: WEBHOOK_SECRETS_KEY_ARN in AWS (KMS), WEBHOOK_SECRETS_KEY_FILE locally. */
function environmentKey(): { kms: string } | { file: string } {
  const arn = process.env.WEBHOOK_SECRETS_KEY_ARN;
  if (arn) return { kms: arn };
  const file = process.env.WEBHOOK_SECRETS_KEY_FILE;
  if (file) return { file };
  throw new Error('Neither WEBHOOK_SECRETS_KEY_ARN nor WEBHOOK_SECRETS_KEY_FILE is set');
}

function generateDataKey(context: EncryptionContext): Promise<NewDataKey> {
  const key = environmentKey();
  return 'kms' in key ? kmsGenerateDataKey(key.kms, context) : fileGenerateDataKey(key.file, context);
}

function decryptDataKey(encrypted: Buffer, context: EncryptionContext): Promise<Buffer> {
  const key = environmentKey();
  return 'kms' in key
    ? kmsDecryptDataKey(key.kms, encrypted, context)
    : fileDecryptDataKey(key.file, encrypted, context);
}

export async function sealSecret(secret: string, owner: SecretOwner): Promise<SealedSecret> {
  const context = contextOf(owner);
  const { plaintext, encrypted } = await generateDataKey(context);
  try {
    return {
      key: encrypted.toString('base64'),
      box: aesSeal(plaintext, Buffer.from(secret, 'utf8'), context).toString('base64'),
    };
  } finally {
    plaintext.fill(0);
  }
}

/** Opened secrets by their box, for a warm worker: one KMS Decrypt per secret, not per delivery. */
const opened = new Map<string, string>();
const MAX_OPENED = 1_000;

export async function openSecret(sealed: SealedSecret, owner: SecretOwner): Promise<string> {
  const cacheKey = `${owner.merchantId}|${owner.webhookId}|${sealed.box}`;
  const cached = opened.get(cacheKey);
  if (cached !== undefined) return cached;
  const context = contextOf(owner);
  const dataKey = await decryptDataKey(Buffer.from(sealed.key, 'base64'), context);
  try {
    const secret = aesOpen(dataKey, Buffer.from(sealed.box, 'base64'), context).toString('utf8');
    if (opened.size >= MAX_OPENED) opened.delete(opened.keys().next().value as string);
    opened.set(cacheKey, secret);
    return secret;
  } finally {
    dataKey.fill(0);
  }
}
