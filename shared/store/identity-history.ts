import { type IdentityKind, type IdentityRef, sameIdentity } from '../identity/identities.ts';
import { retainUntil } from '../retention.ts';
import type { IdentitySnapshot } from '../scoring/identity-snapshot.ts';
import { isNetworkKind } from '../scoring/network-reputation.ts';
import { batchGetItems, keyString } from './batch-get.ts';
import { tableName } from './client.ts';
import {
  bucketMembers,
  distinctCount,
  fingerprintOf,
  MAX_DISTINCT_PER_BUCKET,
  staleVelocityBuckets,
  tracksVelocity,
  velocityAttributesForEvent,
} from './distinct-windows.ts';
import { attributesForEvent, legacyBuckets, staleBuckets, windowedCount } from './history-windows.ts';
import { keys, type TableKey } from './keys.ts';
import {
  countsLinks,
  isLegacyLinkSet,
  isLinked,
  keepsLinks,
  linkedCount,
  linkWrite,
  membersAttribute,
  sketchAttribute,
} from './link-sketch.ts';
import { activeMarkersOf, MARKERS_ATTRIBUTE } from './list-markers.ts';
import { networkKeyFrom, sightingQueueAttributes } from './network-items.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';

/**
 * Per-identity history: counters in time windows and the distinct identities linked to it
 * (e-mails per device, accounts per card, ...), in fixed space whatever the history (coarse
 * buckets, capped velocity buckets, link sketches). One item per identity, read in the request's single
 * BatchGetItem and moved by commutative ADDs inside the request's one transaction; read back as the
 * IdentitySnapshot scoring defines, as of the event's own time `at`: windows end there and ages are
 * measured to it.
 */

export const identityKey = (merchantId: string, ref: IdentityRef): TableKey =>
  keys.identity(merchantId, ref.kind, ref.digest);

export function toSnapshot(
  ref: IdentityRef,
  item: Record<string, unknown> | undefined,
  at: number,
): IdentitySnapshot {
  return {
    ref,
    known: item !== undefined,
    firstSeenAt: typeof item?.firstSeenAt === 'number' ? item.firstSeenAt : undefined,
    lastSeenAt: typeof item?.lastSeenAt === 'number' ? item.lastSeenAt : undefined,
    count: (metric) => windowedCount(item, metric, at),
    secondsSinceLatest: (metric) => {
      const latest = item?.[latestAttribute(metric)];
      return typeof latest === 'number' ? (at - latest) / 1000 : undefined;
    },
    distinct: (kind, own = []) =>
      distinctCount(
        item,
        kind,
        at,
        own.map((ref) => fingerprintOf(ref.digest)),
      ),
    linkedCount: (kind) => linkedCount(item, kind),
    isLinked: (kind, digest) => isLinked(item, kind, digest),
    lists: activeMarkersOf(item, at),
  };
}

export function snapshotsFrom(
  merchantId: string,
  refs: readonly IdentityRef[],
  items: Map<string, Record<string, unknown>>,
  at: number,
): IdentitySnapshot[] {
  return refs.map((ref) => toSnapshot(ref, items.get(keyString(identityKey(merchantId, ref))), at));
}

/** Snapshots read on their own, for a request that scores nothing but needs a count (dispositions). */
export async function loadSnapshots(
  merchantId: string,
  refs: readonly IdentityRef[],
  now: number,
): Promise<IdentitySnapshot[]> {
  if (refs.length === 0) return [];
  const items = await batchGetItems(refs.map((ref) => identityKey(merchantId, ref)));
  return snapshotsFrom(merchantId, refs, items, now);
}

interface PendingIdentityChange {
  ref: IdentityRef;
  adds: Map<string, number>;
  links: Map<IdentityKind, Set<string>>;
  /** Velocity bucket attribute -> fingerprints of linked identities seen in it. */
  sightings: Map<string, Set<number>>;
  /** Per stamped metric, the latest event time it was stamped with (`stamp`). */
  stamps: Map<string, number>;
  /** Earliest and latest event time among the moves (first/last seen are their min/max). */
  earliestAt: number | undefined;
  touchedAt: number | undefined;
  /** The identity's list markers rewritten (undefined `next`: none left), on condition of `read`. */
  markers?: { next: string | undefined; read: string | undefined };
}

/**
 * Collects every counter move and link of one request, merged per identity (a transaction may touch
 * an item only once), and turns them into Update actions for TransactWriteItems.
 */
export class HistoryChanges {
  private readonly changes = new Map<string, PendingIdentityChange>();
  /** Set for a network member's event: its shared identities without a network key are queued. */
  private networkSightings: { merchantId: string; at: number } | undefined;

  /**
   * Queues the sighting of each shared identity these moves touch that has no network key yet (new,
   * or seen before the merchant joined), under the network key its digest carries (network members
   * only: shared/digests/identity-digests.ts).
   */
  queueNetworkSightings(merchantId: string, at: number): this {
    this.networkSightings = { merchantId, at };
    return this;
  }

  private entry(ref: IdentityRef): PendingIdentityChange {
    const id = `${ref.kind}#${ref.digest}`;
    let change = this.changes.get(id);
    if (!change) {
      change = {
        ref,
        adds: new Map(),
        links: new Map(),
        sightings: new Map(),
        stamps: new Map(),
        earliestAt: undefined,
        touchedAt: undefined,
      };
      this.changes.set(id, change);
    }
    return change;
  }

  /** Adds `amount` (may be negative, to undo) to a metric at event time `at`. */
  add(ref: IdentityRef, metric: string, amount: number, at: number): this {
    if (amount === 0) return this;
    const change = this.entry(ref);
    for (const attribute of attributesForEvent(metric, at)) {
      change.adds.set(attribute, (change.adds.get(attribute) ?? 0) + amount);
    }
    touch(change, at);
    return this;
  }

  /**
   * Keeps the moment of a metric's latest event on the identity (`latest_<metric>`, read back as
   * `secondsSinceLatest`), for a signal that fades with the time since it: counts keep windows, not
   * moments. Moves only forward, as last seen does.
   */
  stamp(ref: IdentityRef, metric: string, at: number): this {
    const change = this.entry(ref);
    change.stamps.set(metric, Math.max(change.stamps.get(metric) ?? at, at));
    touch(change, at);
    return this;
  }

  /** Folds another request part's moves into this one (one Update per identity either way). */
  absorb(other: HistoryChanges): this {
    for (const change of other.changes.values()) {
      const mine = this.entry(change.ref);
      for (const [attribute, amount] of change.adds)
        mine.adds.set(attribute, (mine.adds.get(attribute) ?? 0) + amount);
      for (const [kind, digests] of change.links) {
        const set = mine.links.get(kind) ?? new Set<string>();
        for (const digest of digests) set.add(digest);
        mine.links.set(kind, set);
      }
      for (const [attribute, members] of change.sightings) {
        const set = mine.sightings.get(attribute) ?? new Set<number>();
        for (const member of members) set.add(member);
        mine.sightings.set(attribute, set);
      }
      for (const [metric, at] of change.stamps)
        mine.stamps.set(metric, Math.max(mine.stamps.get(metric) ?? at, at));
      if (change.earliestAt !== undefined) touch(mine, change.earliestAt);
      if (change.touchedAt !== undefined) touch(mine, change.touchedAt);
      // In order: the last rewrite, on condition of what the first one read.
      if (change.markers)
        mine.markers = { next: change.markers.next, read: (mine.markers ?? change.markers).read };
    }
    return this;
  }

  /**
   * Rewrites the identity's list markers (shared/store/list-markers.ts) in its one Update, on
   * condition that they are still `read`: a concurrent rewrite fails the transaction instead of
   * being overwritten. Marking an identity does not count as seeing it (first and last seen stay).
   */
  setListMarkers(ref: IdentityRef, next: string | undefined, read: string | undefined): this {
    this.entry(ref).markers = { next, read };
    return this;
  }

  /** How many identity items these moves touch (each is one transaction item). */
  get identityCount(): number {
    return this.changes.size;
  }

  addEach(refs: readonly IdentityRef[], metric: string, amount: number, at: number): this {
    for (const ref of refs) this.add(ref, metric, amount, at);
    return this;
  }

  /** Records that `ref` was seen together with each of `others` (skipping itself). */
  link(ref: IdentityRef, others: readonly IdentityRef[], at: number): this {
    const change = this.entry(ref);
    for (const other of others) {
      if (sameIdentity(other, ref)) continue;
      if (keepsLinks(ref.kind, other.kind)) {
        const set = change.links.get(other.kind) ?? new Set<string>();
        set.add(other.digest);
        change.links.set(other.kind, set);
      }
      if (tracksVelocity(ref.kind, other.kind)) {
        for (const attribute of velocityAttributesForEvent(other.kind, at)) {
          const members = change.sightings.get(attribute) ?? new Set<number>();
          members.add(fingerprintOf(other.digest));
          change.sightings.set(attribute, members);
        }
      }
    }
    touch(change, at);
    return this;
  }

  /** Links every identity of an event with every other one. */
  linkAll(refs: readonly IdentityRef[], at: number): this {
    for (const ref of refs) this.link(ref, refs, at);
    return this;
  }

  get isEmpty(): boolean {
    return this.changes.size === 0;
  }

  /**
   * One Update per identity. Buckets stale as of the event's time are removed in the same write;
   * first and last seen move only outward (min and max of what was read and the event's times), so
   * an out-of-order event never moves them back. Two racing writers that both read before either
   * wrote may leave the later of two first-seen times: the read-then-set is not atomic.
   */
  toTransactItems(merchantId: string, existing: Map<string, Record<string, unknown>>, now: number) {
    return [...this.changes.values()].map((change) => {
      const key = identityKey(merchantId, change.ref);
      const stored = existing.get(keyString(key));
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      const addClauses: string[] = [];
      let n = 0;
      for (const [attribute, amount] of change.adds) {
        if (amount === 0) continue;
        names[`#a${n}`] = attribute;
        values[`:a${n}`] = amount;
        addClauses.push(`#a${n} :a${n}`);
        n++;
      }
      // The item expires a retention after its latest write: each update moves it.
      const setClauses = ['#kind = :kind', '#ttl = :ttl'];
      names['#ttl'] = TTL_ATTRIBUTE;
      values[':ttl'] = retainUntil('identities', now);
      for (const [kind, digests] of change.links) {
        const { add, sketch } = linkWrite(stored, kind, digests, countsLinks(change.ref.kind, kind));
        if (add.length > 0) {
          names[`#l${n}`] = membersAttribute(kind);
          values[`:l${n}`] = new Set(add);
          addClauses.push(`#l${n} :l${n}`);
        }
        if (sketch) {
          names[`#s${n}`] = sketchAttribute(kind);
          values[`:s${n}`] = sketch;
          setClauses.push(`#s${n} = :s${n}`);
        }
        n++;
      }
      for (const [attribute, members] of change.sightings) {
        const current = bucketMembers(stored, attribute);
        const fresh = [...members].filter((m) => !current.has(m));
        const room = Math.max(0, MAX_DISTINCT_PER_BUCKET - current.size);
        if (fresh.length === 0 || room === 0) continue;
        names[`#v${n}`] = attribute;
        values[`:v${n}`] = new Set(fresh.slice(0, room));
        addClauses.push(`#v${n} :v${n}`);
        n++;
      }
      const latest = change.touchedAt ?? now;
      const earliest = change.earliestAt ?? latest;
      const adding = new Set([...change.adds.keys(), ...change.sightings.keys()]);
      const removeClauses = (
        stored
          ? [
              ...staleBuckets(stored, latest),
              ...staleVelocityBuckets(stored, latest),
              ...legacyAttributes(stored),
            ]
          : []
      )
        .filter((attribute) => !adding.has(attribute))
        .map((attribute, i) => {
          names[`#r${i}`] = attribute;
          return `#r${i}`;
        });
      const storedFirst = typeof stored?.firstSeenAt === 'number' ? stored.firstSeenAt : undefined;
      const storedLast = typeof stored?.lastSeenAt === 'number' ? stored.lastSeenAt : undefined;
      names['#kind'] = 'kind';
      values[':kind'] = change.ref.kind;
      const seen = change.touchedAt !== undefined;
      if (seen && (storedFirst === undefined || earliest < storedFirst)) {
        names['#first'] = 'firstSeenAt';
        values[':first'] = earliest;
        setClauses.push(
          storedFirst === undefined ? '#first = if_not_exists(#first, :first)' : '#first = :first',
        );
      }
      if (seen && (storedLast === undefined || latest > storedLast)) {
        names['#last'] = 'lastSeenAt';
        values[':last'] = latest;
        setClauses.push('#last = :last');
      }
      for (const [metric, at] of change.stamps) {
        const stamped = stored?.[latestAttribute(metric)];
        if (typeof stamped === 'number' && stamped >= at) continue;
        names[`#t${n}`] = latestAttribute(metric);
        values[`:t${n}`] = at;
        setClauses.push(`#t${n} = :t${n}`);
        n++;
      }
      // A member's shared identity without a network key waits for the worker, sighted when the
      // merchant first saw it (an identity known before joining is not a new one); once keyed, it is
      // never queued again.
      const { networkKey } = change.ref;
      if (this.networkSightings && networkKey && isNetworkKind(change.ref.kind) && !networkKeyFrom(stored)) {
        const { merchantId: member, at } = this.networkSightings;
        const seenAt = Math.min(at, storedFirst ?? at);
        const queue = sightingQueueAttributes(member, change.ref, seenAt, networkKey);
        for (const [name, value] of Object.entries(queue)) {
          names[`#n${n}`] = name;
          values[`:n${n}`] = value;
          setClauses.push(`#n${n} = if_not_exists(#n${n}, :n${n})`);
          n++;
        }
      }
      const { markers } = change;
      if (markers) {
        // A rewrite changes them: `next` and `read` are never both undefined.
        names['#L'] = MARKERS_ATTRIBUTE;
        if (markers.next === undefined) removeClauses.push('#L');
        else {
          values[':L'] = markers.next;
          setClauses.push('#L = :L');
        }
        if (markers.read !== undefined) values[':Lread'] = markers.read;
      }
      const expression = [
        `SET ${setClauses.join(', ')}`,
        addClauses.length ? `ADD ${addClauses.join(', ')}` : '',
        removeClauses.length ? `REMOVE ${removeClauses.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join(' ');
      return {
        Update: {
          TableName: tableName,
          Key: key,
          UpdateExpression: expression,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ...(markers
            ? { ConditionExpression: markers.read === undefined ? 'attribute_not_exists(#L)' : '#L = :Lread' }
            : {}),
        },
      };
    });
  }
}

/**
 * Attributes in the unbounded formats of earlier versions, removed by the item's next write (at most
 * LEGACY_REMOVALS_PER_WRITE at a time, so the expression stays small): their windows start over.
 */
const LEGACY_REMOVALS_PER_WRITE = 60;
const legacyAttributes = (stored: Record<string, unknown>): string[] =>
  [...legacyBuckets(stored), ...Object.keys(stored).filter(isLegacyLinkSet)].slice(
    0,
    LEGACY_REMOVALS_PER_WRITE,
  );

/** Where `stamp` keeps a metric's latest moment: no bucket or legacy pattern matches it. */
const latestAttribute = (metric: string) => `latest_${metric}`;

function touch(change: PendingIdentityChange, at: number): void {
  change.earliestAt = Math.min(change.earliestAt ?? at, at);
  change.touchedAt = Math.max(change.touchedAt ?? at, at);
}
