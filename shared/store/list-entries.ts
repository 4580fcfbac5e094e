import { forEachConcurrently } from '../concurrency.ts';
import { identityId } from '../identity/identity-ids.ts';
import { entryIdOf, identityRefOf, type ListEntry, markerOf } from '../lists/entries.ts';
import { retainUntil } from '../retention.ts';
import type { ListKind, ListName, ListSource } from '../schemas/lists.ts';
import { keptEventsOf } from '../scoring/signals/watched-identity.ts';
import { type AuditActor, auditPut } from './audit.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { tableName } from './client.ts';
import { HistoryChanges, identityKey, toSnapshot } from './identity-history.ts';
import { keys, listGsi1, listKeys } from './keys.ts';
import {
  encodeMarkers,
  fitMarkers,
  MARKERS_ATTRIBUTE,
  MAX_MARKER_BYTES,
  MAX_MARKERS,
  markersOf,
} from './list-markers.ts';
import { type Page, queryPage } from './pages.ts';
import { GSI1, SORT_KEY, TTL_ATTRIBUTE } from './table-definition.ts';
import {
  ConditionFailedError,
  MAX_TRANSACTION_ITEMS,
  type TransactItem,
  type TransactItems,
  transactWrite,
} from './transact.ts';
import { StaleRecordError } from './versioned.ts';

/**
 * Block, watch and allow list entries: one item per entry (listed through GSI1, newest first), and a
 * marker of it on its identity's item (list-markers.ts), written together with an audit entry in
 * the transaction of the change that makes or removes it: a person's (management API, admin CLI) or
 * a feedback's (a dispute, a disposition, a review resolution), in that feedback's own transaction.
 */

/** An expired entry stays listed this long after it stopped acting; then the table's TTL removes it. */
export const EXPIRED_KEPT_SECONDS = 30 * 86_400;

function listEntryPut(merchantId: string, entry: ListEntry): TransactItem {
  const { expiresAt, ...fields } = entry;
  return {
    Put: {
      TableName: tableName,
      Item: {
        ...listKeys.entry(merchantId, entry.entryId),
        ...listGsi1.entriesByMerchant(merchantId, entry.createdAt, entry.entryId),
        entity: 'listEntry',
        merchantId,
        ...fields,
        // `expiresAt` is the table's TTL attribute (epoch seconds): the entry's own expiry is `expiry`.
        ...(expiresAt === undefined
          ? { [TTL_ATTRIBUTE]: retainUntil('listEntries', Date.parse(entry.createdAt)) }
          : {
              expiry: expiresAt,
              [TTL_ATTRIBUTE]: Math.floor(Date.parse(expiresAt) / 1000) + EXPIRED_KEPT_SECONDS,
            }),
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

export function toListEntry(item: Record<string, unknown>): ListEntry {
  const {
    PK: _pk,
    SK: _sk,
    GSI1PK: _gpk,
    GSI1SK: _gsk,
    entity: _e,
    merchantId: _m,
    expiry,
    ...fields
  } = item;
  const { [TTL_ATTRIBUTE]: _ttl, ...entry } = fields;
  return { ...(entry as unknown as ListEntry), ...(typeof expiry === 'string' ? { expiresAt: expiry } : {}) };
}

/** Who made a list change, as the audit log names them. */
export type ListActor = AuditActor;

/** Feedback entries are audited as made by their rule. */
const actorOf = (actor: ListActor | undefined, entry?: ListEntry): ListActor =>
  actor ?? { keyId: 'feedback_rule', keyName: entry?.createdBy ?? 'feedback' };

/** Entries to add and entries to remove, in one transaction. */
export interface ListEntryChanges {
  add: readonly ListEntry[];
  remove: readonly ListEntry[];
}

/** What a list change writes; `markers` are the identities' markers after it, by identity key. */
export interface ListWrites {
  history: HistoryChanges;
  items: TransactItems;
  displaced: Set<string>;
  markers: Map<string, string | undefined>;
}

/**
 * What a list change writes, from the identity items read before: each entry's Put or Delete, the
 * identity's markers rewritten once (merged into the caller's HistoryChanges, so an identity still
 * gets one Update), and an audit entry per entry added, removed or displaced by the cap. Pure.
 */
export function listChangeWrites(
  merchantId: string,
  changes: ListEntryChanges,
  identityItems: ReadonlyMap<string, Record<string, unknown>>,
  /** undefined: the feedback rules (each entry's `createdBy`). */
  actor: ListActor | undefined,
  now: number,
): ListWrites {
  const history = new HistoryChanges();
  const displaced = new Set<string>();
  const markers = new Map<string, string | undefined>();
  for (const group of byIdentityOf(changes).values()) {
    const ref = identityRefOf((group.add[0] ?? group.remove[0])!);
    const itemKey = keyString(identityKey(merchantId, ref));
    const item = identityItems.get(itemKey);
    const read =
      typeof item?.[MARKERS_ATTRIBUTE] === 'string' ? (item[MARKERS_ATTRIBUTE] as string) : undefined;
    const kept = keptEventsOf(toSnapshot(ref, item, now));
    const fit = fitMarkers(
      markersOf(item),
      group.add.map((entry) => markerOf(entry, kept)),
      new Set(group.remove.map((entry) => markerOf(entry).id)),
      now,
    );
    for (const marker of fit.displaced) displaced.add(entryIdOf(marker));
    const next = encodeMarkers(fit.kept);
    markers.set(itemKey, next);
    if (next !== read) history.setListMarkers(ref, next, read);
  }
  const at = new Date(now).toISOString();
  const audit = (
    action: 'listEntry.added' | 'listEntry.removed' | 'listEntry.displaced',
    subject: string,
    detail: string,
    entry?: ListEntry,
  ) =>
    // The audit id is derived, so a replayed import writes the same audit items.
    auditPut(merchantId, { at, action, ...actorOf(actor, entry), subject, detail }, `${subject}.${action}`);
  const items: TransactItems = [
    ...changes.add.flatMap((entry) => [
      listEntryPut(merchantId, entry),
      audit('listEntry.added', entry.entryId, describe(entry), entry),
    ]),
    ...changes.remove.flatMap((entry) => [
      { Delete: { TableName: tableName, Key: listKeys.entry(merchantId, entry.entryId) } },
      audit('listEntry.removed', entry.entryId, describe(entry), entry),
    ]),
    ...[...displaced].map((entryId) =>
      audit(
        'listEntry.displaced',
        entryId,
        `no longer acts on decisions: its identity holds the most entries that can act (${MAX_MARKERS}, ${MAX_MARKER_BYTES} bytes), block over allow over watch, newest first`,
      ),
    ),
  ];
  return { history, items, displaced, markers };
}

/** A change's entries grouped by the identity they name (each identity's markers change once). */
function byIdentityOf(changes: ListEntryChanges): Map<string, { add: ListEntry[]; remove: ListEntry[] }> {
  const byIdentity = new Map<string, { add: ListEntry[]; remove: ListEntry[] }>();
  for (const [side, entries] of [
    ['add', changes.add],
    ['remove', changes.remove],
  ] as const) {
    for (const entry of entries) {
      const id = identityId(identityRefOf(entry));
      const group = byIdentity.get(id) ?? { add: [], remove: [] };
      group[side].push(entry);
      byIdentity.set(id, group);
    }
  }
  return byIdentity;
}

/** `block card 411111…1234 for order until 2027-01-01T00:00:00.000Z: stolen card` */
function describe(entry: ListEntry): string {
  const scope = entry.eventTypes ? ` for ${entry.eventTypes.join(', ')}` : '';
  const until = entry.expiresAt ? ` until ${entry.expiresAt}` : '';
  return `${entry.list} ${entry.identity}${scope}${until}: ${entry.reason}`;
}

const IDENTITY_SORT_KEY = keys.identity('', '', '')[SORT_KEY];
const ENTRY_SORT_KEY = listKeys.entry('', '')[SORT_KEY];

/**
 * A transaction refused because an identity's markers or an entry changed since they were read (a
 * concurrent list change): the caller reads again and plans again (StaleRecordError).
 */
export const isListConflict = (error: unknown): boolean =>
  error instanceof ConditionFailedError &&
  (error.key?.SK === IDENTITY_SORT_KEY || error.key?.SK === ENTRY_SORT_KEY);

/** Writes a list change alone (a person's add or remove); a concurrent change is a StaleRecordError. */
export async function saveListChanges(
  merchantId: string,
  writes: { history: HistoryChanges; items: TransactItems },
  now: number,
): Promise<void> {
  try {
    await transactWrite([...writes.items, ...writes.history.toTransactItems(merchantId, new Map(), now)]);
  } catch (error) {
    if (isListConflict(error)) throw new StaleRecordError('list entries');
    throw error;
  }
}

/** Entries by id (the missing ones are not in the map). */
export async function getListEntries(
  merchantId: string,
  entryIds: readonly string[],
): Promise<Map<string, ListEntry>> {
  if (entryIds.length === 0) return new Map();
  const items = await batchGetItems(entryIds.map((id) => listKeys.entry(merchantId, id)));
  return new Map([...items.values()].map((item) => [String(item.entryId), toListEntry(item)]));
}

export type ListEntryStatus = 'active' | 'expired' | 'displaced';

/** Whether an entry acts now: expired, or displaced when its identity's item does not carry it. */
export function entryStatus(
  entry: ListEntry,
  identityItem: Record<string, unknown> | undefined,
  now: number,
): ListEntryStatus {
  if (entry.expiresAt !== undefined && Date.parse(entry.expiresAt) <= now) return 'expired';
  const id = markerOf(entry).id;
  return markersOf(identityItem).some((marker) => marker.id === id) ? 'active' : 'displaced';
}

/** Entries with their status, reading their identities' items (one BatchGetItem). */
export async function withStatus(
  merchantId: string,
  entries: readonly ListEntry[],
  now: number,
): Promise<(ListEntry & { status: ListEntryStatus })[]> {
  const items = await batchGetItems(entries.map((entry) => identityKey(merchantId, identityRefOf(entry))));
  return entries.map((entry) => ({
    ...entry,
    status: entryStatus(entry, items.get(keyString(identityKey(merchantId, identityRefOf(entry)))), now),
  }));
}

export interface ListEntryFilter {
  list?: ListName;
  kind?: ListKind;
  source?: ListSource;
}

/** One page of the merchant's entries, newest first, optionally of one list, kind or source. */
export function listEntryPage(
  merchantId: string,
  filter: ListEntryFilter,
  cursor: string | undefined,
  limit: number,
): Promise<Page<ListEntry>> {
  const partition = listGsi1.entriesPartition(merchantId);
  const conditions = Object.entries(filter).filter(([, value]) => value !== undefined);
  return queryPage(
    {
      query: {
        IndexName: GSI1.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: {
          '#pk': GSI1.partitionKey,
          ...Object.fromEntries(conditions.map(([name], i) => [`#f${i}`, name])),
        },
        ExpressionAttributeValues: {
          ':pk': partition,
          ...Object.fromEntries(conditions.map(([, value], i) => [`:f${i}`, value])),
        },
        ...(conditions.length > 0
          ? { FilterExpression: conditions.map((_, i) => `#f${i} = :f${i}`).join(' AND ') }
          : {}),
      },
      partition: { attribute: GSI1.partitionKey, value: partition },
      oldestFirst: false,
      cursor,
      limit,
    },
    toListEntry,
  );
}

/** The transaction items a list change's writes take: its items and one Update per identity. */
const listWriteCount = (writes: { history: HistoryChanges; items: TransactItems }): number =>
  writes.items.length + writes.history.identityCount;

/**
 * Entries of one identity changed in one step at most: each takes its Put or Delete, its audit entry
 * and at worst a displaced audit, and the identity its one Update, so a step stays within a transaction.
 */
const ENTRIES_PER_IDENTITY_STEP = 30;
/** Steps written at once: they touch distinct identities, so they cannot conflict with each other. */
const STEP_CONCURRENCY = 4;

/**
 * Writes a list change too large for one transaction (a chargeback on the widest order, 250
 * returned items found empty) as a sequence of transactions, each whole on its own: an entry is
 * written with its audit entry and its identity's markers, so no step leaves an entry without its
 * marker or the reverse. Rounds take each identity's next entries (an identity's markers are
 * rewritten on condition of what the round before left); a round's steps run concurrently. Each
 * step is idempotent under the caller's retry: entry ids are derived from their cause, a Put is
 * conditional on the entry being new, and a replayed or concurrent step fails its condition
 * (StaleRecordError), so the caller reads again and writes only what is still missing.
 * `identityItems` (the identities' items as read) is updated with the markers each round leaves.
 */
export async function saveListChangesInSteps(
  merchantId: string,
  changes: ListEntryChanges,
  identityItems: Map<string, Record<string, unknown>>,
  actor: ListActor | undefined,
  now: number,
): Promise<void> {
  const rounds: ListEntryChanges[][] = [];
  for (const group of byIdentityOf(changes).values()) {
    const entries = [
      ...group.remove.map((entry) => ({ side: 'remove' as const, entry })),
      ...group.add.map((entry) => ({ side: 'add' as const, entry })),
    ];
    for (let start = 0, round = 0; start < entries.length; start += ENTRIES_PER_IDENTITY_STEP, round++) {
      const slice = entries.slice(start, start + ENTRIES_PER_IDENTITY_STEP);
      const changesOfRound = rounds[round] ?? [];
      rounds[round] = changesOfRound;
      changesOfRound.push({
        add: slice.flatMap(({ side, entry }) => (side === 'add' ? [entry] : [])),
        remove: slice.flatMap(({ side, entry }) => (side === 'remove' ? [entry] : [])),
      });
    }
  }
  for (const round of rounds) {
    const steps: { history: HistoryChanges; items: TransactItems }[] = [];
    for (const change of round) {
      const writes = listChangeWrites(merchantId, change, identityItems, actor, now);
      for (const [key, markers] of writes.markers) {
        identityItems.set(key, { ...identityItems.get(key), [MARKERS_ATTRIBUTE]: markers });
      }
      const last = steps.at(-1);
      if (last && listWriteCount(last) + listWriteCount(writes) <= MAX_TRANSACTION_ITEMS) {
        last.items = [...last.items, ...writes.items];
        last.history.absorb(writes.history);
      } else steps.push({ history: writes.history, items: writes.items });
    }
    await forEachConcurrently(steps, STEP_CONCURRENCY, (step) => saveListChanges(merchantId, step, now));
  }
}
