import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { importedEvent } from './request-scope.ts';

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
export const newUploadId = () => `upl_${randomBase62(16)}`;
export const newPrivacyRequestId = () => `prv_${randomBase62(16)}`;
export const newLakeExportId = () => `exp_${randomBase62(16)}`;
export const newBacktestId = () => `btj_${randomBase62(16)}`;
/**
 * Service-side ids for recorded events, e.g. `ord_...`; random so they reveal no volume. An imported
 * event draws them from its seed instead, so importing it again writes the same items.
 */
export function newServiceId(prefix: string): string {
  const imported = importedEvent();
  if (!imported) return `${prefix}_${randomUUID().replaceAll('-', '')}`;
  const n = imported.idsDrawn++;
  return `${prefix}_${createHash('sha256').update(`${imported.idSeed}:${prefix}:${n}`).digest('hex').slice(0, 32)}`;
}
