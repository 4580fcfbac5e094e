import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { FieldValue } from '../scoring/variables.ts';

/**
 * A stored decision's fields (the event's workflow variables), packed: their JSON deflated against
 * a preset dictionary of the field names, so a name costs a back-reference of 2-3 bytes instead of
 * its 10-30 characters on every record and its GSI1 copy (an order's fields: about 270 -> 80
 * bytes). Byte 0 is the format version.
 *
 * FROZEN: records are packed against this list; never edit or reorder it (a field added later is
 * packed fine without being listed, only less tightly). A new list needs a new version byte.
 */
const DICTIONARY_V1 = Buffer.from(
  [
    'orderValue',
    'currencyCode',
    'lineItemCount',
    'unitCount',
    'orderState',
    'hasDeviceFingerprint',
    'emailAgeSeconds',
    'accountAgeSeconds',
    'deviceAgeSeconds',
    'cardAgeSeconds',
    'addressAgeSeconds',
    'secondsSincePreviousEvent',
    'distinctEmailsOnDevice15m',
    'distinctEmailsOnDevice1h',
    'distinctEmailsOnDevice24h',
    'distinctAccountsOnDevice15m',
    'distinctAccountsOnDevice1h',
    'distinctAccountsOnDevice24h',
    'distinctCardsOnDevice15m',
    'distinctCardsOnDevice1h',
    'distinctCardsOnDevice24h',
    'distinctEmailsOnCard15m',
    'distinctEmailsOnCard1h',
    'distinctEmailsOnCard24h',
    'distinctAccountsOnAddress15m',
    'distinctAccountsOnAddress1h',
    'distinctAccountsOnAddress24h',
    'refundMode',
    'returnMethod',
    'returnStatus',
    'returnedLineItemCount',
    'itemQuantity',
    'itemCategory',
    'itemValue',
    'emailDomain',
    'referralCodeApplied',
    'hasPhone',
    'hasAddress',
    'loginStatus',
    'authMethod',
    'mfaUsed',
    'mfaMethod',
    'changeType',
    'siteDomain',
  ]
    .map((name) => `"${name}":`)
    .join(''),
);
const VERSION_1 = 1;

export function packFields(fields: Readonly<Record<string, FieldValue>>): Uint8Array {
  const packed = deflateRawSync(JSON.stringify(fields), { dictionary: DICTIONARY_V1, level: 9 });
  return Buffer.concat([Buffer.of(VERSION_1), packed]);
}

/** The fields of a stored decision: packed ones unpacked; a plain map (older records) as it is. */
export function unpackFields(stored: unknown): Record<string, FieldValue> | undefined {
  if (stored instanceof Uint8Array) {
    if (stored[0] !== VERSION_1) throw new Error(`unknown packed-fields version ${stored[0]}`);
    const json = inflateRawSync(stored.subarray(1), { dictionary: DICTIONARY_V1 }).toString('utf8');
    return JSON.parse(json) as Record<string, FieldValue>;
  }
  return stored !== null && typeof stored === 'object' ? (stored as Record<string, FieldValue>) : undefined;
}
