import { EVENT_TYPES, type EventType } from '../contract/endpoints.ts';
import type { IdentityRef } from '../identity/identities.ts';
import { identityId, parseIdentityId } from '../identity/identity-ids.ts';
import { isNetworkKind } from '../scoring/network-reputation.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { fingerprintOf } from './distinct-windows.ts';
import { identityKey } from './identity-history.ts';
import {
  consoleKeys,
  gsi1,
  keyOfItem,
  keys,
  learningGsi1,
  listGsi1,
  networkKeys,
  recordIdOf,
  type TableKey,
  webhookGsi1,
  webhookKeys,
} from './keys.ts';
import { keepsLinks, membersAttribute } from './link-sketch.ts';
import { queryAll } from './query-all.ts';
import { reviewIdFor } from './reviews.ts';
import {
  type Listing,
  type ListingCursor,
  listingsOf,
  NEW_LISTING_CURSOR,
  type SliceLimits,
  searchListings,
} from './sliced-search.ts';
import { GSI1, PARTITION_KEY } from './table-definition.ts';
import { pendingOutboxEvents } from './webhook-deliveries.ts';

/**
 * Everything one merchant's table holds about a privacy subject (its identities as digests), read
 * for an export or an erasure (shared/use-cases/privacy-requests.ts). Nothing indexes records by
 * identity, so the subject's events, disputes, list entries, webhook deliveries and audit entries
 * are searched for, in time-bounded slices (searchSubjectSlice); everything else follows from those
 * records or from the identities' own keys. Reads only; the caller erases or exports.
 */
export interface SubjectRecords {
  /** Decided event records: orders, returns, signups, logins, account updates. */
  events: Record<string, unknown>[];
  /**
   * Items beside an event: an order's returned units, a feedback's network work item, the free text
   * of a return (its reasons) and its dispositions, of its review and of the audit entries quoting it.
   */
  sideItems: Record<string, unknown>[];
  disputes: Record<string, unknown>[];
  /** A return's dispositions item. */
  dispositions: Record<string, unknown>[];
  reviews: Record<string, unknown>[];
  /** The subject's own identity items (counters, links, list markers, its network summary). */
  identities: Record<string, unknown>[];
  /** Other identities' link sets holding one of the subject's identities. */
  links: LinkToRemove[];
  listEntries: Record<string, unknown>[];
  /**
   * Entries on other identities (the subject's device, say) that the subject's erased feedback put
   * there: they stay on the lists, their `cause` and `concerns` naming the erased records go.
   */
  listEntryMentions: Record<string, unknown>[];
  /** Webhook deliveries and outbox items whose payload names one of the subject's events. */
  webhookItems: Record<string, unknown>[];
  /** Audit entries whose text names one of the subject's events, reviews, disputes or entries. */
  auditEntries: Record<string, unknown>[];
  /** The merchant's ledger items in the network for the subject's identities: withdrawn whole. */
  networkLedgers: Record<string, unknown>[];
  /** Its ledger items of other identities holding causes of the subject's records: those withdrawn. */
  networkCauses: { ledger: Record<string, unknown>; causes: string[] }[];
}

/** One identity's fingerprint to take out of another identity's link set. */
export interface LinkToRemove {
  key: TableKey;
  attribute: string;
  fingerprint: number;
}

/**
 * The network keys of those identities that have one (sighted while the merchant was a member: the
 * key is computed at event time and kept on its identity item, shared/store/network-items.ts).
 */
export type NetworkKeysOf = (refs: readonly IdentityRef[]) => Promise<string[]>;

/**
 * The search for the subject's records (sliced-search.ts), in three steps, each needing what the one
 * before found: (1) the merchant's decided events (each type x 64 shards), disputes and list entries
 * naming the subject's identities; (2) the disputes on its orders; (3) list entries, webhook
 * deliveries and audit entries naming any of its records (`named`, and the endpoints to read, worked
 * out once as the step starts).
 */
export interface SubjectSearch {
  step: 1 | 2 | 3;
  cursor: ListingCursor;
  named?: string[];
  endpoints?: string[];
}

export const NEW_SUBJECT_SEARCH: SubjectSearch = { step: 1, cursor: NEW_LISTING_CURSOR };

type FoundKind = 'events' | 'disputes' | 'listEntries' | 'listEntryMentions' | 'deliveries' | 'auditEntries';
/** The keys a search found, by kind. */
export type FoundKeys = Partial<Record<FoundKind, TableKey[]>>;

export interface SubjectSearchSlice {
  search: SubjectSearch;
  /** What this slice found. */
  found: FoundKeys;
  /** Listings of the step read to the end, of `listings`. */
  listingsRead: number;
  listings: number;
  done: boolean;
}

/**
 * One slice of the search, from `search` until the deadline; `found` is what earlier slices found
 * (the next step's listings follow from it).
 */
export async function searchSubjectSlice(
  merchantId: string,
  subject: readonly IdentityRef[],
  search: SubjectSearch,
  found: FoundKeys,
  limits: SliceLimits,
): Promise<SubjectSearchSlice> {
  let current = search;
  const all: FoundKeys = { ...found };
  const added: FoundKeys = {};
  for (;;) {
    const listings = stepListings(merchantId, subject, current, all);
    const slice = await searchListings(listings, current.cursor, limits);
    for (const { kind, key } of slice.found) {
      const foundKind = kind as FoundKind;
      added[foundKind] = [...(added[foundKind] ?? []), key];
      all[foundKind] = [...(all[foundKind] ?? []), key];
    }
    current = { ...current, cursor: slice.cursor };
    const progress = { found: added, listingsRead: slice.listingsRead, listings: listings.length };
    if (!slice.done) return { search: current, ...progress, done: false };
    if (current.step === 3) return { search: current, ...progress, done: true };
    current = await nextStep(merchantId, current.step, all);
    if (Date.now() >= limits.deadline) {
      const listingsNext = stepListings(merchantId, subject, current, all).length;
      return { search: current, found: added, listingsRead: 0, listings: listingsNext, done: false };
    }
  }
}

function stepListings(
  merchantId: string,
  subject: readonly IdentityRef[],
  search: SubjectSearch,
  found: FoundKeys,
): Listing[] {
  const ids = subject.map(identityId);
  const disputes = String(learningGsi1.disputesByMerchant(merchantId, '', '')[GSI1.partitionKey]);
  const lists = listGsi1.entriesPartition(merchantId);
  if (search.step === 1) {
    const events = EVENT_TYPES.flatMap((type) => gsi1.eventPartitions(merchantId, type));
    const digests = subject.map((ref) => ref.digest);
    return [
      ...listingsOf(events, { kind: 'events', index: 'gsi1', paths: ['identities'] }, ids),
      ...listingsOf([disputes], { kind: 'disputes', index: 'gsi1', paths: ['applied.identities'] }, ids),
      ...listingsOf([lists], { kind: 'listEntries', index: 'gsi1', paths: ['digest'] }, digests),
    ];
  }
  if (search.step === 2) {
    const orderPartition = keys.order(merchantId, '')[PARTITION_KEY];
    const orderIds = (found.events ?? [])
      .filter((key) => key[PARTITION_KEY].startsWith(orderPartition))
      .map(recordIdOf);
    return listingsOf([disputes], { kind: 'disputes', index: 'gsi1', paths: ['providerOrderId'] }, orderIds);
  }
  const named = search.named ?? [];
  const audit = consoleKeys.auditEntry(merchantId, '', '')[PARTITION_KEY];
  return [
    ...listingsOf([lists], { kind: 'listEntryMentions', index: 'gsi1', paths: ['cause', 'concerns'] }, named),
    // The payload is JSON: a quoted id matches that id only, never a longer one containing it.
    ...listingsOf(
      search.endpoints ?? [],
      { kind: 'deliveries', index: 'table', paths: ['body'], sortKeyPrefix: webhookKeys.deliveryPrefix },
      named.map((id) => JSON.stringify(id)),
    ),
    ...listingsOf([audit], { kind: 'auditEntries', index: 'table', paths: ['subject', 'detail'] }, named),
  ];
}

/** The step after `step`; the third's ids and endpoints are worked out here, once. */
async function nextStep(merchantId: string, step: 1 | 2 | 3, found: FoundKeys): Promise<SubjectSearch> {
  if (step === 1) return { step: 2, cursor: NEW_LISTING_CURSOR };
  const events = await storedItems(found.events);
  const reviews = await storedItems(
    events.map(eventKeyOf).map((e) => keys.review(merchantId, reviewIdFor(e.type, e.key))),
  );
  const named = namedIds(
    events,
    reviews,
    await storedItems(found.disputes),
    await storedItems(found.listEntries),
  );
  return { step: 3, cursor: NEW_LISTING_CURSOR, named, endpoints: await endpointsOf(merchantId) };
}

/** The ids webhooks and audit entries name the subject's records by: the merchant's and the service's. */
function namedIds(
  events: readonly Record<string, unknown>[],
  reviews: readonly Record<string, unknown>[],
  disputes: readonly Record<string, unknown>[],
  listEntries: readonly Record<string, unknown>[],
): string[] {
  const named = [
    ...events.map(eventKeyOf).flatMap((e) => [e.id, ...serviceIdsOf(e.item)]),
    ...reviews.map((r) => String(r.reviewId)),
    ...disputes.map((d) => String(d.disputeId)),
    ...listEntries.map((e) => String(e.entryId)),
  ];
  return [...new Set(named)];
}

/**
 * Outbox items of the merchant's still waiting to be fanned out (the worker's queue holds each for
 * seconds) whose payload names one of `named`: no delivery names them yet.
 */
async function pendingOutboxNaming(merchantId: string, named: readonly string[]): Promise<string[]> {
  // The payload is JSON: a quoted id matches that id only, never a longer one containing it.
  const quoted = named.map((id) => JSON.stringify(id));
  return (await pendingOutboxEvents(PENDING_OUTBOX_READ, merchantId))
    .filter((event) => quoted.some((id) => event.body.includes(id)))
    .map((event) => event.outboxId);
}

/** At most this many of the merchant's pending outbox items are read (the queue drains in seconds). */
const PENDING_OUTBOX_READ = 10_000;

/** The items of those keys that still exist, as they are now. */
const storedItems = async (list: readonly TableKey[] | undefined) => [
  ...(await batchGetItems(list ?? [])).values(),
];

export async function findSubjectRecords(
  merchantId: string,
  subject: readonly IdentityRef[],
  networkKeysOf: NetworkKeysOf,
  found: FoundKeys,
): Promise<SubjectRecords> {
  // As they are now: a record found by an earlier slice may have been erased or changed since.
  const events = await storedItems(found.events);
  const eventKeys = events.map(eventKeyOf);
  const orderIds = eventKeys.filter((e) => e.type === 'order').map((e) => e.id);
  const returnIds = eventKeys.filter((e) => e.type === 'return').map((e) => e.id);
  const disputes = await storedItems(found.disputes);
  const reviewKeys = eventKeys.map((e) => keys.review(merchantId, reviewIdFor(e.type, e.key)));
  const causes = [
    ...returnIds.map((id) => `return:${id}`),
    ...disputes.map((d) => `dispute:${String(d.disputeId)}`),
    ...reviewKeys.map((k) => `review:${recordIdOf(k)}`),
  ];
  // Free text beside the return (its reasons), its dispositions and its review.
  const freeTextKeys = [
    ...returnIds.flatMap((id) => [keys.return(merchantId, id), keys.returnDispositions(merchantId, id)]),
    ...reviewKeys,
  ].map(keys.freeText);
  const candidates = [
    ...orderIds.map((id) => keys.orderReturnedUnits(merchantId, id)),
    ...returnIds.map((id) => keys.returnDispositions(merchantId, id)),
    ...reviewKeys,
    ...freeTextKeys,
    ...causes.map((cause) => networkKeys.work(merchantId, cause)),
    ...subject.map((ref) => identityKey(merchantId, ref)),
  ];
  const others = otherIdentitiesOf(subject, events).filter((ref) => isNetworkKind(ref.kind));
  const subjectNetworkKeys = await networkKeysOf(subject.filter((ref) => isNetworkKind(ref.kind)));
  const otherNetworkKeys = await networkKeysOf(others);
  candidates.push(
    ...[...subjectNetworkKeys, ...otherNetworkKeys].map((nk) => networkKeys.ledger(nk, merchantId)),
  );
  const byKey = await batchGetItems(candidates);
  const stored = (list: readonly TableKey[]) =>
    list.flatMap((key) => {
      const item = byKey.get(keyString(key));
      return item ? [item] : [];
    });
  const causeSet = new Set(causes);
  const networkCauses = stored(otherNetworkKeys.map((nk) => networkKeys.ledger(nk, merchantId))).flatMap(
    (ledger) => {
      const held = Object.keys((ledger.causes ?? {}) as object).filter((cause) => causeSet.has(cause));
      return held.length > 0 ? [{ ledger, causes: held }] : [];
    },
  );
  const deliveries = await storedItems(found.deliveries);
  const reviews = stored(reviewKeys);
  const listEntries = await storedItems(found.listEntries);
  const pending = await pendingOutboxNaming(merchantId, namedIds(events, reviews, disputes, listEntries));
  const outboxIds = [...new Set([...deliveries.map((d) => String(d.eventId)), ...pending])];
  const outbox = await storedItems(outboxIds.map((id) => webhookKeys.outbox(merchantId, id)));
  // An entry on the subject's own identity goes whole; entries elsewhere only lose their mention.
  const auditEntries = await storedItems(found.auditEntries);
  const auditNotes = await storedItems(
    auditEntries.filter((e) => e.hasNote === true).map((e) => keys.freeText(keyOfItem(e))),
  );
  const ownEntries = new Set((found.listEntries ?? []).map(keyString));
  const mentions = (found.listEntryMentions ?? []).filter((key) => !ownEntries.has(keyString(key)));
  return {
    events,
    sideItems: stored([
      ...orderIds.map((id) => keys.orderReturnedUnits(merchantId, id)),
      ...causes.map((cause) => networkKeys.work(merchantId, cause)),
      ...freeTextKeys,
    ]).concat(auditNotes),
    disputes,
    dispositions: stored(returnIds.map((id) => keys.returnDispositions(merchantId, id))),
    reviews,
    identities: stored(subject.map((ref) => identityKey(merchantId, ref))),
    links: await linksToRemove(merchantId, subject, events),
    listEntries,
    listEntryMentions: await storedItems(mentions),
    webhookItems: [...deliveries, ...outbox],
    auditEntries,
    networkLedgers: stored(subjectNetworkKeys.map((nk) => networkKeys.ledger(nk, merchantId))),
    networkCauses,
  };
}

interface EventKey {
  type: EventType;
  key: TableKey;
  /** The merchant's own id of the event (providerOrderId, customerId, ...). */
  id: string;
  item: Record<string, unknown>;
}

const eventKeyOf = (item: Record<string, unknown>): EventKey => {
  const key = { PK: String(item.PK), SK: String(item.SK) };
  return { type: item.entity as EventType, key, id: recordIdOf(key), item };
};

/** The service's own ids on an event record (`serviceOrderId`, ...): webhooks and audit name them. */
const serviceIdsOf = (item: Record<string, unknown>): string[] =>
  Object.entries(item)
    .filter(([name, value]) => /^service[A-Z]\w*Id$/.test(name) && typeof value === 'string')
    .map(([, value]) => String(value));

/** The identities the subject's events name beside the subject's own. */
function otherIdentitiesOf(subject: readonly IdentityRef[], events: readonly Record<string, unknown>[]) {
  const own = new Set(subject.map(identityId));
  return [...new Set(events.flatMap((e) => (Array.isArray(e.identities) ? e.identities.map(String) : [])))]
    .filter((id) => !own.has(id))
    .map(parseIdentityId);
}

/**
 * The link sets of the identities the subject's events name beside it: each kept link to one of
 * the subject's identities is a fingerprint of its digest (link-sketch.ts), taken out where present.
 */
async function linksToRemove(
  merchantId: string,
  subject: readonly IdentityRef[],
  events: readonly Record<string, unknown>[],
): Promise<LinkToRemove[]> {
  const wanted = otherIdentitiesOf(subject, events).flatMap((other) =>
    subject
      .filter((ref) => keepsLinks(other.kind, ref.kind))
      .map((ref) => ({
        key: identityKey(merchantId, other),
        attribute: membersAttribute(ref.kind),
        fingerprint: fingerprintOf(ref.digest),
      })),
  );
  const items = await batchGetItems(wanted.map((link) => link.key));
  return wanted.filter((link) => {
    const members = items.get(keyString(link.key))?.[link.attribute];
    return members instanceof Set && members.has(link.fingerprint);
  });
}

/** The partitions of the merchant's webhook endpoints, whose deliveries name what they sent. */
async function endpointsOf(merchantId: string): Promise<string[]> {
  const endpoints: string[] = [];
  await queryAll(
    {
      IndexName: GSI1.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
      ExpressionAttributeValues: {
        ':pk': String(webhookGsi1.endpointsByMerchant(merchantId, '', '')[GSI1.partitionKey]),
      },
    },
    (item) => endpoints.push(String(item.PK)) > 0,
  );
  return endpoints;
}
