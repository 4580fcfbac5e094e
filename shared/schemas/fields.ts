import * as z from 'zod';
import type { ErrorCode } from '../errors.ts';
import { ISO_NUMERIC_CURRENCIES } from './iso-currencies.ts';

/**
 * Field builders shared by every request schema. Fields whose failure has a specific catalog code
 * (timestamps, currencies, enums) carry that code in `params.apiCode`; shared/http/validation.ts
 * reads it when it turns zod issues into the envelope.
 */
export const MAX_STRING_LENGTH = 1024;
export const LIMITS = {
  lineItems: 250,
  identifiers: 20,
  returnedItems: 250,
  dispositions: 250,
  disputes: 100,
  contacts: 20,
  fingerprints: 20,
  payments: 20,
  discounts: 50,
  images: 20,
  customDataBytes: 16 * 1024,
} as const;

const EARLIEST_TIMESTAMP = Date.UTC(2000, 0, 1);
const ONE_DAY_MS = 86_400_000;

/**
 * One instance per field kind, shared by every schema that uses it: zod schemas are immutable, and
 * building an instance is what a cold start pays for (README, Cold start).
 */
function shared<T>(build: () => T): () => T {
  let instance: T | undefined;
  return () => (instance ??= build());
}

export const text = shared(() => z.string().max(MAX_STRING_LENGTH));
/** An identifier the merchant owns (order id, return id, ...): non-empty, bounded. */
export const idText = shared(() => z.string().min(1).max(256));

export function apiEnum<const T extends readonly [string, ...string[]]>(
  values: T,
  apiCode: Extract<ErrorCode, 'unknown_enum_value' | 'unprocessable_entity'> = 'unprocessable_entity',
) {
  const allowed = new Set<string>(values);
  return z
    .custom<T[number]>((v) => typeof v === 'string' && allowed.has(v), {
      error: `must be one of ${values.join(', ')}`,
      params: { apiCode, allowed: values },
    })
    .meta({ override: { type: 'string', enum: [...values] } });
}

function isEpochMillisInRange(ms: number): boolean {
  return Number.isSafeInteger(ms) && ms >= EARLIEST_TIMESTAMP && ms <= Date.now() + ONE_DAY_MS;
}

/** Epoch milliseconds carried as a string of digits (orders, returns, accounts). */
export const timestampString = shared(() =>
  z
    .custom<string>(
      (v) => typeof v === 'string' && /^\d{12,16}$/.test(v) && isEpochMillisInRange(Number(v)),
      {
        error: 'must be epoch milliseconds as a string of digits, between 2000-01-01 and one day from now',
        params: { apiCode: 'invalid_timestamp' },
      },
    )
    .meta({
      override: { type: 'string', pattern: '^\\d{12,16}$', description: 'Epoch milliseconds as a string' },
    }),
);

/** Epoch milliseconds carried as a JSON number (disputes). */
export const timestampNumber = shared(() =>
  z
    .custom<number>((v) => typeof v === 'number' && isEpochMillisInRange(v), {
      error: 'must be epoch milliseconds as a number, between 2000-01-01 and one day from now',
      params: { apiCode: 'invalid_timestamp' },
    })
    .meta({ override: { type: 'integer', description: 'Epoch milliseconds as a number' } }),
);

export const currencyCode = shared(() =>
  z
    .custom<string>((v) => typeof v === 'string' && ISO_NUMERIC_CURRENCIES.has(v), {
      error: 'must be an ISO 4217 numeric currency code such as "840"',
      params: { apiCode: 'invalid_currency_code' },
    })
    .meta({ override: { type: 'string', pattern: '^\\d{3}$', description: 'ISO 4217 numeric code' } }),
);

export const decimalAmount = shared(() =>
  z
    .string()
    .max(32)
    .regex(/^\d{1,18}(\.\d{1,8})?$/, 'must be a non-negative decimal string such as "19.99"'),
);

export const money = shared(() => z.strictObject({ currencyCode: currencyCode(), amount: decimalAmount() }));

export const quantity = shared(() =>
  z.string().regex(/^[1-9]\d{0,5}$/, 'must be a positive integer as a string'),
);

export const IDENTIFIER_TYPES = ['UPC', 'EAN', 'JAN', 'SKU', 'SerialNo'] as const;

export const identifier = (enumCode?: 'unknown_enum_value') =>
  z.strictObject({ identifierType: apiEnum(IDENTIFIER_TYPES, enumCode), identifier: idText() });

export const deviceFingerprints = shared(() =>
  z.array(z.strictObject({ deviceIdentifier: idText() })).max(LIMITS.fingerprints),
);

export const phoneNumber = shared(() =>
  z.string().regex(/^\+?[0-9 ()\-.]{4,32}$/, 'must be a phone number in international format'),
);

/** A postal address as contact entries carry it (block and watch list entries name one the same way). */
export const postalAddress = shared(() =>
  z.strictObject({
    line1: text().optional(),
    line2: text().optional(),
    city: text().optional(),
    state: text().optional(),
    postalCode: text().optional(),
    country: text().optional(),
    geoCode: z
      .strictObject({ longitude: z.number().min(-180).max(180), latitude: z.number().min(-90).max(90) })
      .optional(),
  }),
);

export const emailAddress = shared(() => z.email().max(320));

/** A payment card as payment entries name it (orders; block and watch list entries). */
export const cardBin = shared(() =>
  z.string().regex(/^\d{6,8}$/, 'must be a 6 to 8 digit bank identification number'),
);
export const cardLast4 = shared(() => z.string().regex(/^\d{4}$/, 'must be the last 4 digits of the card'));
export const cardExpiry = shared(() => z.string().regex(/^(0[1-9]|1[0-2])\/\d{2}$/, 'must be MM/YY'));

export const contactEntry = shared(() =>
  z.discriminatedUnion('contactType', [
    z.strictObject({
      contactType: z.literal('ContactAddress'),
      address: postalAddress(),
      addressType: apiEnum(['Billing', 'Shipping', 'Business']),
    }),
    z.strictObject({ contactType: z.literal('EMail'), address: emailAddress() }),
    z.strictObject({ contactType: z.literal('Phone'), number: phoneNumber() }),
  ]),
);

export const contactInformation = shared(() => z.array(contactEntry()).max(LIMITS.contacts));

/** Any JSON value, for the contract's free-form parts (one named schema in the OpenAPI document). */
// z.unknown, not z.json: the body is parsed JSON, so every value in it is a JSON value already, and
// the document then shows one plain "any JSON value" instead of a recursive union.
export const jsonValue = z.unknown().meta({ id: 'JsonValue', description: 'Any JSON value' });

/** Free-form merchant data: string keys, JSON values, bounded in size. */
export const customData = shared(() =>
  z
    .record(z.string().max(256), jsonValue)
    .refine((v) => Buffer.byteLength(JSON.stringify(v)) <= LIMITS.customDataBytes, {
      error: `must serialize to at most ${LIMITS.customDataBytes} bytes`,
    }),
);

export type ContactEntry = z.infer<ReturnType<typeof contactEntry>>;
export type Money = z.infer<ReturnType<typeof money>>;
export type Identifier = z.infer<ReturnType<typeof identifier>>;
