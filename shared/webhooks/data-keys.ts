/**
 * Where webhook secrets' data keys come from (envelope encryption, secret-box.ts): a fresh 256-bit
 * key with its encrypted copy, and the way back from the copy. Bound to an encryption context (the
 * merchant and endpoint), so a copy moved to another endpoint does not decrypt. Two functions, not
 * one object, so a bundle that only opens secrets (the webhook worker) holds no way to make keys.
 */
export type EncryptionContext = Readonly<Record<string, string>>;

export interface NewDataKey {
  plaintext: Buffer;
  encrypted: Buffer;
}
