import { randomBytes, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 text (rejection sampling, so no character is favoured). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const newMerchantId = () => `mer_${randomBase62(16)}`;
export const newKeyId = () => `key_${randomBase62(16)}`;
/** Service-side ids for recorded events, e.g. `ord_...`; random so they reveal no volume. */
export const newServiceId = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;
