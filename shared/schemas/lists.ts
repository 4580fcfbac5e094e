import * as z from 'zod';
import { CONSOLE_EVENT_TYPES, cursor, page, pageLimit } from './console.ts';
import {
  cardBin,
  cardExpiry,
  cardLast4,
  emailAddress,
  idText,
  isoTime,
  label,
  phoneNumber,
  postalAddress,
  text,
} from './fields.ts';

/**
 * Block, watch and allow lists through the management API: entries (add, list, show, remove) and the
 * feedback rules that add entries by themselves. An identity is sent as the events send it and kept
 * only as a digest with a masked hint.
 */
export const LIST_NAMES = ['block', 'watch', 'allow'] as const;
export type ListName = (typeof LIST_NAMES)[number];

/** The identity kinds a list entry may name (the identity kinds events link on). */
export const LIST_KINDS = ['card', 'device', 'email', 'phone', 'address', 'customer'] as const;
export type ListKind = (typeof LIST_KINDS)[number];

/**
 * The allow list vouches for a person, so it takes the identities that are the customer: an
 * account (customer id) or an e-mail. A device, card, address or phone may be shared with others.
 */
const ALLOW_KINDS: readonly ListKind[] = ['customer', 'email'];

/**
 * `manual`: a person (console, admin CLI, a script with a console key); `rule`: the merchant's own
 * automation; `feedback`: the service's feedback rules only (never sent by a caller).
 */
export const LIST_SOURCES = ['manual', 'rule', 'feedback'] as const;
export type ListSource = (typeof LIST_SOURCES)[number];

/** The feedback rules, each switchable per merchant (on by default). */
export const LIST_RULES = ['lostFraudChargeback', 'abusiveDisposition', 'abuseReview'] as const;
export type ListRule = (typeof LIST_RULES)[number];

const listName = z.enum(LIST_NAMES);
const listKind = z.enum(LIST_KINDS);
const eventTypes = z
  .array(z.enum(CONSOLE_EVENT_TYPES))
  .min(1)
  .max(CONSOLE_EVENT_TYPES.length)
  .refine((types) => new Set(types).size === types.length, { error: 'must not repeat an event type' })
  .meta({ uniqueItems: true });

/** A card as orders name it: BIN, last4 and expiry, or the merchant's payment identifier. */
export const cardValue = z.union([
  z.strictObject({ BIN: cardBin(), last4: cardLast4(), expiry: cardExpiry().optional() }),
  z.strictObject({ paymentIdentifier: idText() }),
]);

/** An address as contact entries send it; line1, postalCode and country identify it. */
export const identifyingAddress = () =>
  postalAddress()
    .refine((a) => Boolean(a.line1?.trim() || a.postalCode?.trim()), {
      error: 'needs line1 or postalCode',
    })
    .meta({ description: 'As contact entries send it; line1, postalCode and country identify it' });

/** The identity as the events name it, by kind. */
const listedIdentity = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('card'),
    value: cardValue.meta({
      description:
        'BIN, last4 and expiry as the orders send them (an order without expiry is another card than one with it), or the paymentIdentifier',
    }),
  }),
  z.strictObject({
    kind: z.literal('device'),
    value: idText().meta({ description: 'The deviceIdentifier' }),
  }),
  z.strictObject({ kind: z.literal('email'), value: emailAddress() }),
  z.strictObject({ kind: z.literal('phone'), value: phoneNumber() }),
  z.strictObject({
    kind: z.literal('address'),
    value: identifyingAddress(),
  }),
  z.strictObject({
    kind: z.literal('customer'),
    value: idText().meta({ description: 'The customerId / providerCustomerId of the account' }),
  }),
]);

export const listEntryRequestSchema = z
  .strictObject({
    list: listName,
    identity: listedIdentity,
    reason: text().min(1),
    expiresAt: z.iso
      .datetime({ offset: true })
      // The longest with an offset and milliseconds.
      .max(29)
      .refine((at) => Date.parse(at) > Date.now(), { error: 'must be in the future' })
      .optional()
      .meta({
        description: 'ISO 8601; the entry stops acting then. Absent: until removed',
        examples: ['2099-12-31T23:59:59.000+00:00'],
      }),
    eventTypes: eventTypes
      .optional()
      .meta({ description: 'Only events of these types; absent means every type' }),
    source: z
      .enum(['manual', 'rule'])
      .optional()
      .meta({ description: '`manual` (default) for a person, `rule` for the merchant’s own automation' }),
  })
  .superRefine((entry, context) => {
    if (entry.list === 'allow' && !ALLOW_KINDS.includes(entry.identity.kind)) {
      context.addIssue({
        code: 'custom',
        path: ['identity', 'kind'],
        message: `must be ${ALLOW_KINDS.join(' or ')} on the allow list (it vouches for a customer)`,
      });
    }
  });
export type ListEntryRequest = z.infer<typeof listEntryRequestSchema>;
export type ListedIdentity = ListEntryRequest['identity'];

export const listEntryQuerySchema = z.strictObject({
  list: listName.optional(),
  kind: listKind.optional(),
  source: z.enum(LIST_SOURCES).optional(),
  cursor: cursor.optional(),
  limit: pageLimit,
});

export const listEntrySchema = z
  .object({
    entryId: label(),
    list: listName,
    kind: listKind,
    /** Masked: never the value itself. */
    identity: text().meta({ description: 'A masked hint of the identity, never its value' }),
    identityDigest: label().meta({ description: 'The first characters of the identity’s digest' }),
    reason: text(),
    source: z.enum(LIST_SOURCES),
    createdBy: label().meta({ description: 'The console key’s holder, `admin CLI`, or the feedback rule' }),
    createdAt: isoTime(),
    effectiveAt: isoTime().meta({
      description: 'From when it acts: the feedback’s own time, else createdAt',
    }),
    expiresAt: isoTime().optional(),
    eventTypes: z.array(z.enum(CONSOLE_EVENT_TYPES)).max(CONSOLE_EVENT_TYPES.length).optional(),
    cause: text()
      .optional()
      .meta({ description: 'Feedback entries: `dispute:<id>`, `disposition:<returnId>` or `review:<id>`' }),
    concerns: text().optional().meta({ description: 'The event the feedback was about' }),
    status: z.enum(['active', 'expired', 'displaced']).meta({
      description:
        '`displaced`: the identity holds its maximum of entries in force and newer or stronger ones took the place',
    }),
  })
  .meta({ id: 'ListEntry' });
export type ListEntryView = z.infer<typeof listEntrySchema>;

export const listEntryPageSchema = page(listEntrySchema, 'ListEntryPage');

export const listEntryRemovedSchema = z
  .object({ entryId: label(), deleted: z.literal(true) })
  .meta({ id: 'ListEntryRemoved' });

const ruleSwitches = Object.fromEntries(LIST_RULES.map((rule) => [rule, z.boolean()])) as Record<
  ListRule,
  z.ZodBoolean
>;

export const listRulesSchema = z.object(ruleSwitches).meta({ id: 'ListRules' });
export const listRulesRequestSchema = z.strictObject(ruleSwitches);
export type ListRules = z.infer<typeof listRulesSchema>;
