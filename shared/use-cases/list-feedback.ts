import { identityId, parseIdentityId } from '../identity/identity-ids.ts';
import { identityRefOf, type ListEntry } from '../lists/entries.ts';
import { batchGetItems, keyString } from '../store/batch-get.ts';
import { HistoryChanges, identityKey } from '../store/identity-history.ts';
import { listKeys } from '../store/keys.ts';
import {
  type ListEntryChanges,
  listChangeWrites,
  saveListChangesInSteps,
  toListEntry,
} from '../store/list-entries.ts';
import { MARKERS_ATTRIBUTE } from '../store/list-markers.ts';
import type { TransactItems } from '../store/transact.ts';

/**
 * An entry a feedback record (a dispute, a return's dispositions) put on the lists: its id and its
 * identity (`kind#digest`), so taking it off reads its entry and its identity's item at once.
 */
interface ListedEntry {
  entryId: string;
  identity: string;
}

/**
 * The list entries one feedback record should hold after a change: `listed` are those it holds,
 * `target` the entries its new state calls for, and `mayAdd` whether its rule may add them now
 * (switched on, and the change is new evidence).
 */
export interface FeedbackLists {
  listed: readonly ListedEntry[];
  target: readonly ListEntry[];
  mayAdd: boolean;
}

/** What a feedback record's change writes for its lists, and the entries it holds afterwards. */
export interface FeedbackListWrites {
  history: HistoryChanges;
  items: TransactItems;
  listed: ListedEntry[];
}

const listedOf = (entry: ListEntry): ListedEntry => ({
  entryId: entry.entryId,
  identity: identityId(identityRefOf(entry)),
});

/**
 * Plans each record's list writes, in order, each on top of the markers the ones before it leave
 * (several disputes of one request may touch one device): an entry its state no longer calls for is
 * removed, one it calls for is added once (ids are derived from the cause, so a retry finds it).
 * Reads the entries and their identities' items in one BatchGetItem, only when something moves.
 *
 * `room` is how many items the caller's transaction can give these writes. When they need more (a
 * lost chargeback on an order with 60 identities is 180), they are written here and now, in steps
 * (saveListChangesInSteps), before the caller writes its record: the writes it gets back are then
 * empty and `listed` says what its record holds. Were the record's write to fail after the steps, the
 * caller's retry (or the client's) finds the entries there and adopts them.
 */
export async function feedbackListWrites(
  merchantId: string,
  feedbacks: readonly FeedbackLists[],
  now: number,
  room: number,
): Promise<FeedbackListWrites[]> {
  const plans = feedbacks.map(({ listed, target, mayAdd }) => {
    const wanted = new Set(target.map((entry) => entry.entryId));
    const held = new Set(listed.map((entry) => entry.entryId));
    return {
      keep: listed.filter((entry) => wanted.has(entry.entryId)),
      removals: listed.filter((entry) => !wanted.has(entry.entryId)),
      adds: mayAdd ? target.filter((entry) => !held.has(entry.entryId)) : [],
    };
  });
  const listedAfter = plans.map((plan) => [...plan.keep, ...plan.adds.map(listedOf)]);
  const nothing = () => listedAfter.map((listed) => ({ history: new HistoryChanges(), items: [], listed }));
  if (plans.every((plan) => plan.removals.length === 0 && plan.adds.length === 0)) return nothing();
  const involved = plans.flatMap((plan) => [...plan.removals, ...plan.adds.map(listedOf)]);
  const items = await batchGetItems(
    involved.flatMap(({ entryId, identity }) => [
      listKeys.entry(merchantId, entryId),
      identityKey(merchantId, parseIdentityId(identity)),
    ]),
  );
  const stored = (entryId: string) => {
    const item = items.get(keyString(listKeys.entry(merchantId, entryId)));
    return item ? toListEntry(item) : undefined;
  };
  const changes: ListEntryChanges[] = plans.map((plan) => ({
    // An entry a person removed meanwhile is gone already; one already there was added before.
    remove: plan.removals.flatMap(({ entryId }) => stored(entryId) ?? []),
    add: plan.adds.filter((entry) => !stored(entry.entryId)),
  }));
  // The items as read, for the steps: planning below rewrites the markers in `items`.
  const asRead = new Map(items);
  const merged = new HistoryChanges();
  const writes = changes.map((change, i) => {
    const planned = listChangeWrites(merchantId, change, items, undefined, now);
    for (const [key, markers] of planned.markers) {
      items.set(key, { ...items.get(key), [MARKERS_ATTRIBUTE]: markers });
    }
    merged.absorb(planned.history);
    return { history: planned.history, items: planned.items, listed: listedAfter[i]! };
  });
  const needed = writes.reduce((n, w) => n + w.items.length, 0) + merged.identityCount;
  if (needed <= room) return writes;
  await saveListChangesInSteps(
    merchantId,
    { add: changes.flatMap((c) => c.add), remove: changes.flatMap((c) => c.remove) },
    asRead,
    undefined,
    now,
  );
  return nothing();
}
