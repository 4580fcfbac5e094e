import * as z from 'zod';
import type { ErrorCode } from '../errors.ts';
import { ISO_NUMERIC_CURRENCIES } from './iso-currencies.ts';

/**
 * Field builders shared by every request and response schema. Each carries its bounds (length,
 * items, range, pattern, values), so zod validation and the OpenAPI document (zod-openapi reads the
 * same schema) cannot differ: a schema built from these fields is bounded in both without more work.
 * Fields whose failure has a specific catalog code (timestamps, currencies, enums) carry that code in
 * `params.apiCode`; shared/http/validation.ts reads it when it turns zod issues into the envelope.
 * Patterned fields list `examples`, one at their longest, which the document shows and the
 * generated boundary test (test/openapi-bounds.test.ts) sends.
 */
export const MAX_STRING_LENGTH = 1024;
/** Merchant ids (order, return, customer, ...) and ids in the path. */
const MAX_ID_LENGTH = 256;
/** Names people give merchants and console keys (admin CLI), shown by the console. */
export const MAX_NAME_LENGTH = 256;
/** A page cursor, as the lists give it and take it back. */
export const MAX_CURSOR_LENGTH = 2048;
/** Items on one page of a list. */
export const MAX_PAGE_SIZE = 100;
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
/** How far after its receipt an event's own timestamp may lie (clock skew). */
const LATEST_TIMESTAMP_AFTER_RECEIPT_MS = 86_400_000;
/**
 * Every time in the range has 12 digits (before 2001-09-09) or 13 (until the year 2286), so the
 * digits bound the length of a string timestamp and the largest 13-digit number bounds a numeric one
 * (the live bound, receipt + 1 day, is always below it).
 */
const TIMESTAMP_MAX_DIGITS = 13;
const TIMESTAMP_DIGITS = new RegExp(`^\\d{12,${TIMESTAMP_MAX_DIGITS}}$`);
const LATEST_EXPRESSIBLE_TIMESTAMP = 10 ** TIMESTAMP_MAX_DIGITS - 1;
/**
 * The live upper bound of an event time, in the document: `maximum` (a fixed number) cannot say
 * "one day after receipt", so this extension does, and the boundary test reads it.
 */
export const TIMESTAMP_AFTER_RECEIPT_EXTENSION = 'x-maximum-after-receipt-ms';

/**
 * One instance per field kind, shared by every schema that uses it: zod schemas are immutable, and
 * building an instance is what a cold start pays for (docs/benchmarks.md, cold import).
 */
function shared<T>(build: () => T): () => T {
  let instance: T | undefined;
  return () => (instance ??= build());
}

export const text = shared(() => z.string().max(MAX_STRING_LENGTH));

// The settings' fields are marked pure so that the bundles of the event functions, which never use
// them, drop them (esbuild keeps a top-level call it cannot prove free of side effects).
/** A share of something, 0 to 1 (a margin, a budget of good customers). */
export const share = /* @__PURE__ */ shared(() => z.number().min(0).max(1));
/** The largest amount a setting takes, in the merchant's own currency (nothing is converted). */
const MAX_SETTING_AMOUNT = 1_000_000;
export const settingAmount = /* @__PURE__ */ shared(() => z.number().min(0).max(MAX_SETTING_AMOUNT));
/** A whole number of things a day (reviews), up to a million. */
export const perDayCount = /* @__PURE__ */ shared(() =>
  z.number().multipleOf(1, 'must be a whole number').min(0).max(1_000_000),
);
/** An identifier the merchant owns (order id, return id, ...): non-empty, bounded. */
export const idText = shared(() => z.string().min(1).max(MAX_ID_LENGTH));
/**
 * An id in the path (`{order-id}`): bounded like a body id. Not `min(1)`: an empty segment never
 * reaches a handler (it names another route), so the bound would be one no request can test.
 */
export const pathIdText = shared(() => z.string().max(MAX_ID_LENGTH));

/**
 * An integer between `min` and `max`, with the OpenAPI `format` its range needs (int32 when it fits).
 * `coerce` for query parameters, which arrive as text.
 */
export function boundedInt(min: number, max: number, options: { coerce?: boolean } = {}) {
  const format = min >= -(2 ** 31) && max < 2 ** 31 ? 'int32' : 'int64';
  return (options.coerce ? z.coerce.number().int() : z.int()).min(min).max(max).meta({ format });
}
/** A count the service reports: 0 up to the int32 range. */
export const count = shared(() => boundedInt(0, 2 ** 31 - 1));

/* Fields of answers, bounded by what the service puts there. */

/** An id the service makes: a short prefix and random or hashed letters and digits (`ord_…`, `wh_…`). */
const SERVICE_ID_MAX_LENGTH = 64;
export const serviceId = shared(() =>
  z
    .string()
    .max(SERVICE_ID_MAX_LENGTH)
    .regex(/^[a-z]+_[0-9A-Za-z]+$/)
    .meta({ examples: ['ord_3f2a9c1e5b7d4f608a1b2c3d4e5f6a7b'] }),
);
/** A moment the service recorded, as `Date#toISOString` writes it (UTC, milliseconds). */
export const isoTime = shared(() => z.iso.datetime().max(24));
/** A day (UTC), `YYYY-MM-DD`. */
export const isoDay = shared(() => z.iso.date().max(10));
const DAY_MS = 86_400_000;

/**
 * A refinement of `{ from, to }` UTC days: `to` not before `from` and at most `maxDays` after it,
 * reported on `to`. With `optional`, both or neither are given.
 */
export const dayRangeIssues =
  (maxDays: number, { optional = false } = {}) =>
  (range: { from?: string | undefined; to?: string | undefined }, context: z.RefinementCtx) => {
    if (range.from === undefined || range.to === undefined) {
      if (optional && range.from === range.to) return;
      const missing = range.from === undefined ? 'from' : 'to';
      context.addIssue({ code: 'custom', path: [missing], message: 'must be given with the other bound' });
      return;
    }
    const days = (Date.parse(range.to) - Date.parse(range.from)) / DAY_MS + 1;
    if (days < 1) context.addIssue({ code: 'custom', path: ['to'], message: 'must not be before `from`' });
    else if (days > maxDays)
      context.addIssue({
        code: 'custom',
        path: ['to'],
        message: `must be within ${maxDays} days of \`from\``,
      });
  };
/** A name or label: of a merchant or key, a version, a signal or variable, a kind. */
export const label = shared(() => z.string().max(MAX_NAME_LENGTH));

/** Bounds of a merchant's workflow (checked by shared/scoring/workflow-validation.ts before a save). */
export const WORKFLOW_LIMITS = {
  rules: 50,
  branchNameLength: 64,
  conditionLength: 2000,
  reasonLength: 200,
  /** Problems a validation answer lists (past it, the last one says how many more). */
  problemsListed: 100,
  /** Changed decisions a backtest shows. */
  backtestExamples: 10,
} as const;
/** Branch names go on the wire as `subDecision`: short, plain identifiers. */
const WORKFLOW_BRANCH_NAME = new RegExp(
  `^[A-Za-z][A-Za-z0-9_.-]{0,${WORKFLOW_LIMITS.branchNameLength - 1}}$`,
);
export const workflowBranchName = shared(() =>
  z
    .string()
    .max(WORKFLOW_LIMITS.branchNameLength)
    .regex(
      WORKFLOW_BRANCH_NAME,
      `must start with a letter and use only letters, digits, _ . - (max ${WORKFLOW_LIMITS.branchNameLength})`,
    )
    .meta({ examples: ['default_approve'] }),
);
export const workflowCondition = shared(() => z.string().max(WORKFLOW_LIMITS.conditionLength));

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
  return (
    Number.isSafeInteger(ms) &&
    ms >= EARLIEST_TIMESTAMP &&
    ms <= Date.now() + LATEST_TIMESTAMP_AFTER_RECEIPT_MS
  );
}

const TIMESTAMP_RANGE = 'between 2000-01-01 and one day after the request is received';
const timestampBounds = {
  [TIMESTAMP_AFTER_RECEIPT_EXTENSION]: LATEST_TIMESTAMP_AFTER_RECEIPT_MS,
};

/** Epoch milliseconds carried as a string of digits (orders, returns, accounts). */
export const timestampString = shared(() =>
  z
    .custom<string>(
      (v) => typeof v === 'string' && TIMESTAMP_DIGITS.test(v) && isEpochMillisInRange(Number(v)),
      {
        error: `must be epoch milliseconds as a string of digits, ${TIMESTAMP_RANGE}`,
        params: { apiCode: 'invalid_timestamp' },
      },
    )
    .meta({
      override: {
        type: 'string',
        pattern: TIMESTAMP_DIGITS.source,
        maxLength: TIMESTAMP_MAX_DIGITS,
        description: `Epoch milliseconds as a string, ${TIMESTAMP_RANGE}`,
        examples: ['1763791200000'],
        ...timestampBounds,
      },
    }),
);

/** Epoch milliseconds carried as a JSON number (disputes). */
export const timestampNumber = shared(() =>
  z
    .custom<number>((v) => typeof v === 'number' && isEpochMillisInRange(v), {
      error: `must be epoch milliseconds as a number, ${TIMESTAMP_RANGE}`,
      params: { apiCode: 'invalid_timestamp' },
    })
    .meta({
      override: {
        type: 'integer',
        format: 'int64',
        minimum: EARLIEST_TIMESTAMP,
        maximum: LATEST_EXPRESSIBLE_TIMESTAMP,
        description: `Epoch milliseconds as a number, ${TIMESTAMP_RANGE}`,
        ...timestampBounds,
      },
    }),
);

const CURRENCY_CODE = /^\d{3}$/;
const currencyCode = shared(() =>
  z
    .custom<string>((v) => typeof v === 'string' && CURRENCY_CODE.test(v) && ISO_NUMERIC_CURRENCIES.has(v), {
      error: 'must be an ISO 4217 numeric currency code such as "840"',
      params: { apiCode: 'invalid_currency_code' },
    })
    .meta({
      override: {
        type: 'string',
        pattern: CURRENCY_CODE.source,
        maxLength: 3,
        description: 'ISO 4217 numeric code of a currency that exists',
        examples: ['840'],
      },
    }),
);

/** A Money amount: at most 18 integer digits and 8 decimals. */
const AMOUNT_INTEGER_DIGITS = 18;
const AMOUNT_DECIMALS = 8;
export const decimalAmount = shared(() =>
  z
    .string()
    .max(AMOUNT_INTEGER_DIGITS + 1 + AMOUNT_DECIMALS)
    .regex(
      new RegExp(`^\\d{1,${AMOUNT_INTEGER_DIGITS}}(\\.\\d{1,${AMOUNT_DECIMALS}})?$`),
      'must be a non-negative decimal string such as "19.99"',
    )
    .meta({ examples: ['19.99', `${'9'.repeat(AMOUNT_INTEGER_DIGITS)}.${'9'.repeat(AMOUNT_DECIMALS)}`] }),
);

export const money = shared(() => z.strictObject({ currencyCode: currencyCode(), amount: decimalAmount() }));

/** Units of a line: 1 to 999,999, as a string. */
export const quantity = shared(() =>
  z
    .string()
    .max(6)
    .regex(/^[1-9]\d{0,5}$/, 'must be a positive integer as a string')
    .meta({ examples: ['1', '999999'] }),
);

export const IDENTIFIER_TYPES = ['UPC', 'EAN', 'JAN', 'SKU', 'SerialNo'] as const;

export const identifier = (enumCode?: 'unknown_enum_value') =>
  z.strictObject({ identifierType: apiEnum(IDENTIFIER_TYPES, enumCode), identifier: idText() });

export const deviceFingerprints = shared(() =>
  z.array(z.strictObject({ deviceIdentifier: idText() })).max(LIMITS.fingerprints),
);

export const phoneNumber = shared(() =>
  z
    .string()
    .max(33)
    .regex(/^\+?[0-9 ()\-.]{4,32}$/, 'must be a phone number in international format')
    .meta({ examples: ['+1 415 555 0100', `+${'1'.repeat(32)}`] }),
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
  z
    .string()
    .max(8)
    .regex(/^\d{6,8}$/, 'must be a 6 to 8 digit bank identification number')
    .meta({ examples: ['424242', '42424242'] }),
);
export const cardLast4 = shared(() =>
  z
    .string()
    .max(4)
    .regex(/^\d{4}$/, 'must be the last 4 digits of the card')
    .meta({ examples: ['4242'] }),
);
export const cardExpiry = shared(() =>
  z
    .string()
    .max(5)
    .regex(/^(0[1-9]|1[0-2])\/\d{2}$/, 'must be MM/YY')
    .meta({ examples: ['12/29'] }),
);

const contactEntry = shared(() =>
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
