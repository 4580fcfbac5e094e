import type { EventType } from '../contract/endpoints.ts';
import type { ListName } from '../schemas/lists.ts';
import { isActiveAt, LIST_ENTRY_ID_CHARS, type ListMarker, NOTE_CAUSES } from '../scoring/list-marker.ts';

/**
 * How an identity's item carries the block, watch and allow entries on it: one string attribute of
 * compact markers, `;`-separated, each `<id><list><since>[<expiry>]<event types><cause>[<kept>]<ref>`:
 * the entry id's 9 characters; the list's first letter, upper-case when an expiry follows; times in
 * seconds since 2000 in base 36 (six characters until 2069); the event types as one base-36 digit,
 * a bit mask over MASK_TYPES (0: every type); the note's cause as its index in NOTE_CAUSES, plus 10
 * (a base-36 letter) when the kept events at the entry follow as one base-36 digit; the note's ref
 * (at most 16 characters). One attribute with a one-letter name, no separators inside a marker:
 * every byte of an identity item is paid on every decision's write. It is rewritten whole,
 * conditional on the value read, by the writes that change entries (never by an event's own write).
 */
export const MARKERS_ATTRIBUTE = 'L';

/**
 * Bytes the markers may take on one identity item: the largest identity item `npm run bench --
 * scale` writes (an address shared by 10,000 orders) measures 913-940 B without markers, so 64 B
 * (and the name) keep every item within 1 KB, one write unit, with room for the run-to-run
 * variation. Two typical markers fit (a lost fraud chargeback's: 25 B).
 */
export const MAX_MARKER_BYTES = 64;
/** Markers per identity at most, whatever their size (three of the smallest, 18 B, fit the bytes). */
export const MAX_MARKERS = 3;
const REF_CHARS = 16;
const EPOCH_SECONDS = 946_684_800;
const TIME_CHARS = 6;
/** FROZEN: stored masks name event types by their position here; add new types at the end only. */
const MASK_TYPES: readonly EventType[] = ['order', 'return', 'signup', 'login', 'account'];

/** Added to the cause's index when the kept events at the entry follow it (causes stay under 10). */
const KEPT_FOLLOWS = 10;
/** Kept events a marker records at most (one base-36 digit): past them the watch says almost nothing. */
const MAX_KEPT_AT_ENTRY = 35;

const LISTS: Readonly<Record<string, ListName>> = { b: 'block', w: 'watch', a: 'allow' };

const encodeTime = (seconds: number) =>
  Math.max(0, seconds - EPOCH_SECONDS)
    .toString(36)
    .padStart(TIME_CHARS, '0');
const decodeTime = (text: string) => (Number.parseInt(text, 36) + EPOCH_SECONDS) * 1000;

/** A ref fit for a marker: no separator or control characters, at most REF_CHARS characters. */
export function markerRef(ref: string): string {
  const clean = ref.replace(/[;\p{Cc}]/gu, ' ');
  const chars = [...clean];
  return chars.length <= REF_CHARS ? clean : `${chars.slice(0, REF_CHARS - 1).join('')}…`;
}

export function encodeMarker(marker: ListMarker): string {
  // Whole seconds: an entry acts from the start of its second (so an event a few ms after a
  // person's add is covered) and stops at the start of its expiry's (never later than asked).
  const since = encodeTime(Math.floor(marker.since / 1000));
  const expiry = marker.expiresAt === undefined ? '' : encodeTime(Math.floor(marker.expiresAt / 1000));
  const list = expiry ? marker.list[0]!.toUpperCase() : marker.list[0];
  let mask = 0;
  for (const type of marker.eventTypes ?? []) mask |= 1 << MASK_TYPES.indexOf(type);
  const { cause, ref } = marker.note;
  const kept = Math.min(MAX_KEPT_AT_ENTRY, Math.max(0, Math.floor(marker.keptAtEntry ?? 0)));
  const causeAndKept =
    kept > 0
      ? `${(NOTE_CAUSES.indexOf(cause) + KEPT_FOLLOWS).toString(36)}${kept.toString(36)}`
      : `${NOTE_CAUSES.indexOf(cause)}`;
  return `${marker.id}${list}${since}${expiry}${mask.toString(36)}${causeAndKept}${markerRef(ref)}`;
}

function decodeMarker(text: string): ListMarker | undefined {
  const code = text.charAt(LIST_ENTRY_ID_CHARS);
  const list = LISTS[code.toLowerCase()];
  const times = LIST_ENTRY_ID_CHARS + 1;
  // Upper case: an expiry follows the start.
  const rest = times + (code === code.toLowerCase() ? 1 : 2) * TIME_CHARS;
  const bits = Number.parseInt(text.charAt(rest), 36);
  const causeCode = Number.parseInt(text.charAt(rest + 1), 36);
  const keptFollows = causeCode >= KEPT_FOLLOWS;
  const cause = NOTE_CAUSES[keptFollows ? causeCode - KEPT_FOLLOWS : causeCode];
  const kept = keptFollows ? Number.parseInt(text.charAt(rest + 2), 36) : 0;
  // A malformed time reads as NaN, and a marker with a NaN time is never active.
  if (!list || !cause || Number.isNaN(kept)) return undefined;
  return {
    id: text.slice(0, LIST_ENTRY_ID_CHARS),
    list,
    since: decodeTime(text.slice(times, times + TIME_CHARS)),
    expiresAt: rest > times + TIME_CHARS ? decodeTime(text.slice(times + TIME_CHARS, rest)) : undefined,
    eventTypes: bits ? MASK_TYPES.filter((_, i) => (bits & (1 << i)) !== 0) : undefined,
    note: { cause, ref: text.slice(rest + (keptFollows ? 3 : 2)) },
    ...(kept > 0 ? { keptAtEntry: kept } : {}),
  };
}

/** Every marker an identity item holds (an unreadable one is skipped). */
export function markersOf(item: Record<string, unknown> | undefined): ListMarker[] {
  const value = item?.[MARKERS_ATTRIBUTE];
  if (typeof value !== 'string' || value === '') return [];
  return value.split(';').flatMap((text) => decodeMarker(text) ?? []);
}

/** The markers acting at `at`: what scoring reads of an identity's lists. */
export const activeMarkersOf = (item: Record<string, unknown> | undefined, at: number) =>
  markersOf(item).filter((marker) => isActiveAt(marker, at));

export const encodeMarkers = (markers: readonly ListMarker[]): string | undefined =>
  markers.length === 0 ? undefined : markers.map(encodeMarker).join(';');

const LIST_RANK: Record<ListName, number> = { block: 0, allow: 1, watch: 2 };

/**
 * The markers an identity keeps after some are added and some removed: expired ones go, then the
 * rest are kept block over allow over watch and newest first while they fit MAX_MARKERS and
 * MAX_MARKER_BYTES. What does not fit is `displaced`: its entry stays listed (status `displaced`)
 * but no longer acts on decisions. Pure.
 */
export function fitMarkers(
  stored: readonly ListMarker[],
  adding: readonly ListMarker[],
  removing: ReadonlySet<string>,
  now: number,
): { kept: ListMarker[]; displaced: ListMarker[] } {
  const added = new Set(adding.map((m) => m.id));
  const candidates = [
    ...stored.filter(
      (m) => !removing.has(m.id) && !added.has(m.id) && (m.expiresAt === undefined || now < m.expiresAt),
    ),
    ...adding,
  ].sort((a, b) => LIST_RANK[a.list] - LIST_RANK[b.list] || b.since - a.since || (a.id < b.id ? -1 : 1));
  const kept: ListMarker[] = [];
  const displaced: ListMarker[] = [];
  let bytes = -1;
  for (const marker of candidates) {
    const size = Buffer.byteLength(encodeMarker(marker)) + 1;
    if (kept.length < MAX_MARKERS && bytes + size <= MAX_MARKER_BYTES) {
      kept.push(marker);
      bytes += size;
    } else displaced.push(marker);
  }
  return { kept, displaced };
}
