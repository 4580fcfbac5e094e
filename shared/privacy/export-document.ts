import type { PrivacyRecordKind } from '../schemas/privacy.ts';

/**
 * The export's one JSON document: every record the merchant holds about the subject, by kind, and
 * what each kind and field means, so that the person it is about can read it. Pure.
 */
const RECORD_KIND_MEANINGS: Record<PrivacyRecordKind, string> = {
  events:
    'Events the merchant sent that name the subject (orders, returns, signups, logins, account updates), with the decision the service answered',
  sideItems:
    'Items kept beside an event: units returned per order line, feedback waiting to be shared with the network, and free text written about it (a reviewer’s note), kept for 90 days',
  disputes: 'Payment disputes (chargebacks) on the subject’s orders, with their history of states',
  dispositions: 'Inspection results of returned items',
  reviews: 'Decisions put in the merchant’s review queue, and how a person resolved them',
  identities:
    'Per identity (as a digest, never the value): counts of events in time windows, when it was first and last seen, fingerprints of identities seen with it, list markers',
  links: 'Other identities whose counters hold a fingerprint of one of the subject’s identities',
  listEntries: 'Block, watch and allow list entries on the subject’s identities',
  webhookItems: 'Notifications of the subject’s events sent (or to send) to the merchant’s endpoints',
  auditEntries: 'Entries of the merchant’s audit log naming the subject’s events',
  networkContributions:
    'What the merchant contributed to the opt-in network about the subject’s identities (under keyed digests)',
};

const FIELD_MEANINGS: Record<string, string> = {
  PK: 'Where the record is stored (the merchant and the record’s id)',
  SK: 'Which record of that place it is',
  GSI1PK: 'A listing the record appears in (by type and time)',
  GSI1SK: 'Its place in that listing',
  entity: 'The kind of record',
  merchantId: 'The merchant that holds the record',
  identities:
    'Identities the event named, as `kind#digest`: a digest is a one-way hash of the normalised e-mail, card, device, address, phone or account',
  kind: 'The identity’s kind (email, card, device, address, phone, customer, ...)',
  digest: 'One-way hash of the normalised identity',
  decision: 'The service’s decision: APPROVE, DECLINE or REVIEW, the rule that matched, the reason and score',
  decisions: 'One decision per part of the event (a return’s lines)',
  abuseScore: '0 to 100: how likely the event is abuse',
  createdAt: 'When the record was made (UTC)',
  updatedAt: 'When it last changed (UTC)',
  eventAt: 'The event’s own time (epoch milliseconds)',
  timestamp: 'The time the merchant gave the event (epoch milliseconds)',
  firstSeenAt: 'When the identity was first seen (epoch milliseconds)',
  lastSeenAt: 'When it was last seen (epoch milliseconds)',
  expiresAt: 'When the record is deleted by the retention policy (epoch seconds)',
  lineItems: 'The order’s lines: quantity, unit price, category and product identifiers',
  networkOwn: 'What this merchant contributed to the network about the identity',
  causes: 'The merchant’s confirmed-abuse reports on a network identity',
  body: 'The notification as sent',
  note: 'Words a decision quotes from a list entry',
  resolution: 'How a person resolved the review (their note is kept apart, as free text)',
  text: 'Free text a person wrote about the record (a reviewer’s note), kept for a shorter time than the record',
};

/** Attribute name patterns of identity counters: `c_<metric>_<bucket>`, `k_<kind>`, `s_<kind>`, `v_...`. */
const PATTERN_MEANINGS: [RegExp, string][] = [
  [/^k_/, 'Fingerprints of linked identities of one kind'],
  [/^s_/, 'An estimate of how many identities of one kind were seen with it'],
  [/^[a-z]+_\d/, 'A count of events in one time window'],
];

export function exportDocument(
  about: { merchantId: string; requestId: string; identities: readonly string[]; generatedAt: string },
  records: Record<PrivacyRecordKind, readonly Record<string, unknown>[]>,
): string {
  const fields = new Set<string>();
  const plain = Object.fromEntries(
    Object.entries(records).map(([kind, items]) => [
      kind,
      items.map((item) => {
        for (const name of Object.keys(item)) fields.add(name);
        return item;
      }),
    ]),
  );
  const meanings = Object.fromEntries(
    [...fields].sort().flatMap((name) => {
      const meaning = FIELD_MEANINGS[name] ?? PATTERN_MEANINGS.find(([pattern]) => pattern.test(name))?.[1];
      return meaning ? [[name, meaning]] : [];
    }),
  );
  return JSON.stringify(
    {
      about: 'Everything this merchant’s abuse-decision service holds about one customer',
      ...about,
      recordKinds: RECORD_KIND_MEANINGS,
      fields: meanings,
      records: plain,
    },
    jsonValue,
    2,
  );
}

/** Sets as arrays, bytes as base64: what JSON cannot hold as the table does. */
function jsonValue(_key: string, value: unknown): unknown {
  if (value instanceof Set) return [...value];
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  return value;
}
