import { forEachConcurrently } from '../concurrency.ts';
import type { EventType } from '../contract/endpoints.ts';
import type { IdentityRef } from '../identity/identities.ts';
import { identityId, parseIdentityId } from '../identity/identity-ids.ts';
import { isNetworkKind } from '../scoring/network-reputation.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { fingerprintOf } from './distinct-windows.ts';
import { identityKey } from './identity-history.ts';
import {
  consoleKeys,
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
import { chunks, containsAny, FILTER_VALUES } from './subject-events.ts';
import { GSI1, PARTITION_KEY } from './table-definition.ts';

/**
 * Everything one merchant's table holds about a privacy subject (its identities as digests), read
 * for an export or an erasure (shared/use-cases/privacy-requests.ts). The subject's events are
 * found first, in slices (subject-events.ts); everything else follows from those events or from the
 * identities' own keys. Reads only; the caller erases or exports.
 */
export interface SubjectRecords {
  /** Decided event records: orders, returns, signups, logins, account updates. */
  events: Record<string, unknown>[];
  /** Items beside an event: an order's returned units, a feedback's network work item. */
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

/** Queries in flight at once. */
const QUERY_CONCURRENCY = 16;

/**
 * The network keys of those identities that have one (sighted while the merchant was a member: the
 * key is computed at event time and kept on its identity item, shared/store/network-items.ts).
 */
export type NetworkKeysOf = (refs: readonly IdentityRef[]) => Promise<string[]>;

export async function findSubjectRecords(
  merchantId: string,
  subject: readonly IdentityRef[],
  networkKeysOf: NetworkKeysOf,
  foundEvents: readonly TableKey[],
): Promise<SubjectRecords> {
  const ids = subject.map(identityId);
  // As they are now: an event found by an earlier slice may have been erased or changed since.
  const events = [...(await batchGetItems(foundEvents)).values()];
  const eventKeys = events.map(eventKeyOf);
  const orderIds = eventKeys.filter((e) => e.type === 'order').map((e) => e.id);
  const returnIds = eventKeys.filter((e) => e.type === 'return').map((e) => e.id);
  const disputes = await disputesNaming(merchantId, ids, orderIds);
  const reviewKeys = eventKeys.map((e) => keys.review(merchantId, reviewIdFor(e.type, e.key)));
  const causes = [
    ...returnIds.map((id) => `return:${id}`),
    ...disputes.map((d) => `dispute:${String(d.disputeId)}`),
    ...reviewKeys.map((k) => `review:${recordIdOf(k)}`),
  ];
  const candidates = [
    ...orderIds.map((id) => keys.orderReturnedUnits(merchantId, id)),
    ...returnIds.map((id) => keys.returnDispositions(merchantId, id)),
    ...reviewKeys,
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
  const reviews = stored(reviewKeys);
  const links = await linksToRemove(merchantId, subject, events);
  const listEntries = await listEntriesNaming(merchantId, subject);
  const causeSet = new Set(causes);
  const networkCauses = stored(otherNetworkKeys.map((nk) => networkKeys.ledger(nk, merchantId))).flatMap(
    (ledger) => {
      const held = Object.keys((ledger.causes ?? {}) as object).filter((cause) => causeSet.has(cause));
      return held.length > 0 ? [{ ledger, causes: held }] : [];
    },
  );
  const named = [
    ...eventKeys.flatMap((e) => [e.id, ...serviceIdsOf(e.item)]),
    ...reviews.map((r) => String(r.reviewId)),
    ...disputes.map((d) => String(d.disputeId)),
    ...listEntries.map((e) => String(e.entryId)),
  ];
  return {
    events,
    sideItems: stored([
      ...orderIds.map((id) => keys.orderReturnedUnits(merchantId, id)),
      ...causes.map((cause) => networkKeys.work(merchantId, cause)),
    ]),
    disputes,
    dispositions: stored(returnIds.map((id) => keys.returnDispositions(merchantId, id))),
    reviews,
    identities: stored(subject.map((ref) => identityKey(merchantId, ref))),
    links,
    listEntries,
    listEntryMentions: await listEntriesMentioning(merchantId, named, listEntries),
    webhookItems: await webhookItemsNaming(merchantId, named),
    auditEntries: await auditEntriesNaming(merchantId, named),
    networkLedgers: stored(subjectNetworkKeys.map((nk) => networkKeys.ledger(nk, merchantId))),
    networkCauses,
  };
}

/** Every item of the queried partitions matching an `OR` of contains() over `values`, chunked. */
async function queryNaming(
  partitions: readonly string[],
  index: 'table' | 'gsi1',
  paths: readonly string[],
  values: readonly string[],
  extra: { condition?: string; names?: Record<string, string>; values?: Record<string, unknown> } = {},
): Promise<Record<string, unknown>[]> {
  if (values.length === 0) return [];
  const found = new Map<string, Record<string, unknown>>();
  const work = partitions.flatMap((pk) => chunks(values, FILTER_VALUES).map((chunk) => ({ pk, chunk })));
  await forEachConcurrently(work, QUERY_CONCURRENCY, async ({ pk, chunk }) => {
    const filters = paths.map((path, i) => containsAny(path, chunk, `f${i}_`));
    const pkName = index === 'gsi1' ? GSI1.partitionKey : PARTITION_KEY;
    await queryAll(
      {
        ...(index === 'gsi1' ? { IndexName: GSI1.name } : {}),
        KeyConditionExpression: `#pk = :pk${extra.condition ? ` AND ${extra.condition}` : ''}`,
        FilterExpression: filters.map((f) => `(${f.expression})`).join(' OR '),
        ExpressionAttributeNames: Object.assign(
          { '#pk': pkName },
          extra.names,
          ...filters.map((f) => f.names),
        ),
        ExpressionAttributeValues: Object.assign(
          { ':pk': pk },
          extra.values,
          ...filters.map((f) => f.values),
        ),
      },
      (item) => {
        found.set(keyString(item as unknown as TableKey), item);
        return true;
      },
    );
  });
  return [...found.values()];
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

/** Disputes on the subject's identities (their effects name them) or on one of its orders. */
function disputesNaming(merchantId: string, ids: readonly string[], orderIds: readonly string[]) {
  const partition = String(learningGsi1.disputesByMerchant(merchantId, '', '')[GSI1.partitionKey]);
  return Promise.all([
    queryNaming([partition], 'gsi1', ['applied.identities'], ids),
    queryNaming([partition], 'gsi1', ['providerOrderId'], orderIds),
  ]).then(([a, b]) => [
    ...new Map([...a, ...b].map((d) => [keyString(d as unknown as TableKey), d])).values(),
  ]);
}

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

function listEntriesNaming(merchantId: string, subject: readonly IdentityRef[]) {
  const digests = subject.map((ref) => ref.digest);
  return queryNaming([listGsi1.entriesPartition(merchantId)], 'gsi1', ['digest'], digests);
}

/** Entries on other identities whose cause or event is one of the named records. */
async function listEntriesMentioning(
  merchantId: string,
  named: readonly string[],
  deleted: readonly Record<string, unknown>[],
) {
  const gone = new Set(deleted.map((entry) => keyString(entry as unknown as TableKey)));
  const found = await queryNaming(
    [listGsi1.entriesPartition(merchantId)],
    'gsi1',
    ['cause', 'concerns'],
    named,
  );
  return found.filter((entry) => !gone.has(keyString(entry as unknown as TableKey)));
}

/** Deliveries of every endpoint, and their outbox items, whose payload names one of the ids. */
async function webhookItemsNaming(merchantId: string, named: readonly string[]) {
  const endpointsPartition = String(webhookGsi1.endpointsByMerchant(merchantId, '', '')[GSI1.partitionKey]);
  const endpoints: string[] = [];
  await queryAll(
    {
      IndexName: GSI1.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
      ExpressionAttributeValues: { ':pk': endpointsPartition },
    },
    (item) => endpoints.push(String(item.PK)) > 0,
  );
  // The payload is JSON: a quoted id matches that id only, never a longer one containing it.
  const quoted = named.map((id) => JSON.stringify(id));
  const deliveries = await queryNaming(endpoints, 'table', ['body'], quoted, {
    condition: 'begins_with(#sk, :delivery)',
    names: { '#sk': 'SK' },
    values: { ':delivery': webhookKeys.deliveryPrefix },
  });
  const outboxKeys = [...new Set(deliveries.map((d) => String(d.eventId)))].map((eventId) =>
    webhookKeys.outbox(merchantId, eventId),
  );
  const outbox = await batchGetItems(outboxKeys);
  return [...deliveries, ...outbox.values()];
}

function auditEntriesNaming(merchantId: string, named: readonly string[]) {
  const partition = consoleKeys.auditEntry(merchantId, '', '')[PARTITION_KEY];
  return queryNaming([partition], 'table', ['subject', 'detail'], named);
}
