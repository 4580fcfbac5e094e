import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM with a context as associated data: `iv (12) | tag (16) | ciphertext` in one buffer.
 * A wrong key or context fails the tag check and throws.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

const aadOf = (context: Readonly<Record<string, string>>) =>
  Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : 1))));

export function aesSeal(key: Buffer, plaintext: Buffer, context: Readonly<Record<string, string>>): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aadOf(context));
  const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), data]);
}

export function aesOpen(key: Buffer, sealed: Buffer, context: Readonly<Record<string, string>>): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(aadOf(context));
  decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}
