import { identityDigests } from '../digests/identity-digests.ts';
import { ApiError, notFound } from '../errors.ts';
import { derivedEntryId, identityRefOf, type ListEntry, listedIdentityRef } from '../lists/entries.ts';
import { listRulesOf } from '../lists/feedback-rules.ts';
import type { ListEntryRequest, ListRules } from '../schemas/lists.ts';
import { auditPut } from '../store/audit.ts';
import { batchGetItems, keyString } from '../store/batch-get.ts';
import { canonicalJson } from '../store/canonical.ts';
import { identityKey } from '../store/identity-history.ts';
import { listKeys } from '../store/keys.ts';
import {
  entryStatus,
  getListEntries,
  type ListActor,
  type ListEntryFilter,
  type ListEntryStatus,
  listChangeWrites,
  listEntryPage,
  saveListChanges,
  toListEntry,
  withStatus,
} from '../store/list-entries.ts';
import { getMerchant, saveListRules } from '../store/merchants.ts';
import type { Page } from '../store/pages.ts';
import { retryOnStaleRecord } from './retry-stale.ts';

/**
 * People's changes to the lists and to the feedback rules: the management API (a console key's
 * holder) and the admin CLI (`admin`) call these, and every change is audited in its transaction.
 */
export type ListedEntry = ListEntry & { status: ListEntryStatus };

/**
 * Adds a person's entry: one per identity and list (its id is derived from them), so a retried add
 * answers the entry it made (`replayed`); the same identity again with another reason, expiry,
 * scope or source is 409 `duplicate_list_entry` (remove it first, or keep it). It acts from now.
 */
export async function addListEntry(
  merchantId: string,
  request: ListEntryRequest,
  actor: ListActor,
  now: number,
): Promise<{ entry: ListedEntry; replayed: boolean }> {
  const { ref, hint } = listedIdentityRef(request.identity, await identityDigests(merchantId));
  const at = new Date(now).toISOString();
  const entry: ListEntry = {
    entryId: derivedEntryId('person', request.list, ref),
    list: request.list,
    kind: request.identity.kind,
    digest: ref.digest,
    identity: hint,
    reason: request.reason,
    source: request.source ?? 'manual',
    createdBy: actor.keyName,
    createdAt: at,
    effectiveAt: at,
    ...(request.expiresAt ? { expiresAt: new Date(request.expiresAt).toISOString() } : {}),
    ...(request.eventTypes ? { eventTypes: [...request.eventTypes] } : {}),
    note: { cause: 'reason', ref: request.reason },
  };
  return retryOnStaleRecord(async () => {
    const entryKey = listKeys.entry(merchantId, entry.entryId);
    const itemKey = identityKey(merchantId, ref);
    const items = await batchGetItems([entryKey, itemKey]);
    const existing = items.get(keyString(entryKey));
    if (existing) {
      const stored = toListEntry(existing);
      if (sameRequest(stored, entry)) {
        const status = entryStatus(stored, items.get(keyString(itemKey)), now);
        return { entry: { ...stored, status }, replayed: true };
      }
      throw new ApiError(
        'duplicate_list_entry',
        `This identity is on the ${entry.list} list already (${entry.entryId}) with another reason, expiry, scope or source; remove that entry first.`,
        { field: 'identity' },
      );
    }
    const writes = listChangeWrites(merchantId, { add: [entry], remove: [] }, items, actor, now);
    await saveListChanges(merchantId, writes, now);
    const status: ListEntryStatus = writes.displaced.has(entry.entryId) ? 'displaced' : 'active';
    return { entry: { ...entry, status }, replayed: false };
  });
}

/** A person's add compared with an entry already made: the same but for who and when. */
const sameRequest = (stored: ListEntry, entry: ListEntry) => {
  const { createdBy: _b, createdAt: _c, effectiveAt: _e, ...a } = stored;
  const { createdBy: _b2, createdAt: _c2, effectiveAt: _e2, ...b } = entry;
  return canonicalJson(a) === canonicalJson(b);
};

/** Removes an entry (a feedback's too: the person overrides the rule); 404 when there is none. */
export async function removeListEntry(
  merchantId: string,
  entryId: string,
  actor: ListActor,
  now: number,
): Promise<void> {
  await retryOnStaleRecord(async () => {
    const entry = (await getListEntries(merchantId, [entryId])).get(entryId);
    if (!entry) throw listEntryNotFound();
    const items = await batchGetItems([identityKey(merchantId, identityRefOf(entry))]);
    const writes = listChangeWrites(merchantId, { add: [], remove: [entry] }, items, actor, now);
    await saveListChanges(merchantId, writes, now);
  });
}

export async function showListEntry(merchantId: string, entryId: string, now: number): Promise<ListedEntry> {
  const entry = (await getListEntries(merchantId, [entryId])).get(entryId);
  if (!entry) throw listEntryNotFound();
  const [shown] = await withStatus(merchantId, [entry], now);
  return shown!;
}

/** One page of entries, newest first, with whether each acts now. */
export async function findListEntries(
  merchantId: string,
  filter: ListEntryFilter,
  cursor: string | undefined,
  limit: number,
  now: number,
): Promise<Page<ListedEntry>> {
  const page = await listEntryPage(merchantId, filter, cursor, limit);
  const items = page.items.length > 0 ? await withStatus(merchantId, page.items, now) : [];
  return page.nextCursor ? { items, nextCursor: page.nextCursor } : { items };
}

export async function readListRules(merchantId: string): Promise<ListRules> {
  const merchant = await getMerchant(merchantId);
  if (!merchant) throw notFound('No such merchant.');
  return listRulesOf(merchant.listRules);
}

/** Saves the feedback rules' switches, audited; they act on feedback from the next request on. */
export async function saveRules(
  merchantId: string,
  rules: ListRules,
  actor: ListActor,
  now: number,
): Promise<ListRules> {
  const saved = await saveListRules(merchantId, rules, [
    auditPut(merchantId, {
      at: new Date(now).toISOString(),
      action: 'listRules.saved',
      ...actor,
      subject: 'list rules',
      detail: Object.entries(rules)
        .map(([rule, on]) => `${rule} ${on ? 'on' : 'off'}`)
        .join(', '),
    }),
  ]);
  if (!saved) throw notFound('No such merchant.');
  return rules;
}

const listEntryNotFound = () => notFound('No list entry with this id.');
