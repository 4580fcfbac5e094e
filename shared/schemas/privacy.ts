import * as z from 'zod';
import { page } from './console.ts';
import { boundedInt, count, emailAddress, idText, isoTime, phoneNumber, serviceId, text } from './fields.ts';
import { cardValue, identifyingAddress } from './lists.ts';

/**
 * A privacy request through the management API (docs/privacy.md): erase or export everything the
 * merchant holds about one customer, named by the identifiers its events sent. The service keeps
 * only their digests.
 */
export const PRIVACY_REQUEST_TYPES = ['erase', 'export'] as const;
export type PrivacyRequestType = (typeof PRIVACY_REQUEST_TYPES)[number];

/** Identifiers of one kind a subject may name: a person has a few e-mails, cards, devices. */
const MAX_SUBJECT_IDENTIFIERS = 20;
const identifiers = <T extends z.ZodType>(item: T, description: string) =>
  z.array(item).max(MAX_SUBJECT_IDENTIFIERS).optional().meta({ description });

export const privacySubjectSchema = z
  .strictObject({
    customerIds: identifiers(idText(), 'The customerId / providerCustomerId of the accounts'),
    emails: identifiers(emailAddress(), 'E-mail addresses, as contact entries send them'),
    phones: identifiers(phoneNumber(), 'Phone numbers, as contact entries send them'),
    cards: identifiers(cardValue, 'Cards as orders send them: BIN, last4 and expiry, or paymentIdentifier'),
    devices: identifiers(idText(), 'Device identifiers, as deviceFingerprints send them'),
    addresses: identifiers(identifyingAddress(), 'Postal addresses, as contact entries send them'),
  })
  .refine((subject) => Object.values(subject).some((list) => (list?.length ?? 0) > 0), {
    error: 'must name at least one identifier',
  });
export type PrivacySubject = z.infer<typeof privacySubjectSchema>;

export const privacyRequestSchema = z.strictObject({
  type: z.enum(PRIVACY_REQUEST_TYPES).meta({
    description: '`erase` removes the customer’s records; `export` writes them to a document to download',
  }),
  subject: privacySubjectSchema,
});

/** The kinds of identifier a subject's lists name, as the request keeps them (`kind#digest`). */
const SUBJECT_IDENTITY_KINDS = ['customer', 'email', 'phone', 'card', 'device', 'address'] as const;
type SubjectIdentityKind = (typeof SUBJECT_IDENTITY_KINDS)[number];

const identifierKinds = z
  .object(
    Object.fromEntries(SUBJECT_IDENTITY_KINDS.map((kind) => [kind, count().optional()])) as Record<
      SubjectIdentityKind,
      z.ZodOptional<ReturnType<typeof count>>
    >,
  )
  .meta({
    description: 'How many identifiers of each kind the subject named: kinds and counts, never values',
  });

/** What a request found (export) or removed (erase), per kind of record. */
const PRIVACY_RECORD_KINDS = [
  'events',
  'sideItems',
  'disputes',
  'dispositions',
  'reviews',
  'identities',
  'links',
  'listEntries',
  'webhookItems',
  'auditEntries',
  'networkContributions',
] as const;
export type PrivacyRecordKind = (typeof PRIVACY_RECORD_KINDS)[number];
const counts = z
  .object({
    ...(Object.fromEntries(PRIVACY_RECORD_KINDS.map((kind) => [kind, count()])) as Record<
      PrivacyRecordKind,
      ReturnType<typeof count>
    >),
    lakeRows: count()
      .optional()
      .meta({
        description:
          'Erase only: rows removed from the lake (docs/privacy.md), counted as its passes run: at once, ' +
          'then again an hour later for rows the lake received late',
      }),
  })
  .meta({ id: 'PrivacyCounts' });
export type PrivacyCounts = z.infer<typeof counts>;

export const privacyRequestStatusSchema = z
  .object({
    requestId: serviceId(),
    type: z.enum(PRIVACY_REQUEST_TYPES),
    status: z.enum(['pending', 'done', 'failed']),
    /** How many identifiers the subject named (their digests are kept, never the values). */
    identifiers: count(),
    identifierKinds,
    createdAt: isoTime(),
    finishedAt: isoTime().optional(),
    counts: counts.optional().meta({ description: 'Records found (export) or removed (erase), per kind' }),
    exportUrl: z
      .url()
      .max(4096)
      .optional()
      .meta({ description: 'Export only: the document’s download link, until `exportExpiresAt`' }),
    exportExpiresAt: isoTime().optional(),
    reason: text().optional().meta({ description: 'Why a failed request stopped' }),
    progress: z
      .object({
        step: boundedInt(1, 3),
        listingsRead: count(),
        listings: count(),
        eventsFound: count(),
        slices: count(),
        updatedAt: isoTime(),
      })
      .optional()
      .meta({
        id: 'PrivacyProgress',
        description:
          'How far the worker has gone: the step of the search for the customer’s records (1: events, disputes ' +
          'and list entries naming its identifiers; 2: disputes on its orders; 3: list entries, webhook deliveries ' +
          'and audit entries naming its records), that step’s listings searched of `listings`, the events found ' +
          'so far, and the time-bounded slices run',
      }),
  })
  .meta({ id: 'PrivacyRequest' });
export type PrivacyRequestStatus = z.infer<typeof privacyRequestStatusSchema>;
export type PrivacyProgress = NonNullable<PrivacyRequestStatus['progress']>;

/** The merchant's requests, newest first (the console's Privacy page). */
export const privacyRequestPageSchema = page(privacyRequestStatusSchema, 'PrivacyRequestPage');
