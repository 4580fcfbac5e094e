import type { EventType } from '../contract/endpoints.ts';
import type { ListName } from '../schemas/lists.ts';

/** Entry ids are this prefix and LIST_ENTRY_ID_CHARS characters; a marker keeps the characters. */
export const LIST_ENTRY_ID_PREFIX = 'le_';
export const LIST_ENTRY_ID_CHARS = 9;

/**
 * What an entry is about, in a few words a decision can quote: the feedback that made it and the
 * event it concerns (shortened), or the first words of the reason a person gave. Markers name a
 * cause by its position here: add new ones at the end.
 */
const NOTE_WORDS = {
  chargeback: 'lost fraud chargeback on order ',
  emptyBox: 'empty box on return ',
  counterfeit: 'counterfeit item on return ',
  suspectedAbuse: 'suspected abuse on return ',
  review: 'abuse confirmed in review of ',
  reason: '',
};
export type NoteCause = keyof typeof NOTE_WORDS;
export const NOTE_CAUSES = Object.keys(NOTE_WORDS) as NoteCause[];

export interface ListNote {
  cause: NoteCause;
  /** The event it concerns (`o-123`, `return r-1`), or the reason's first words. */
  ref: string;
}

/**
 * A block, watch or allow list entry as the item of its identity carries it (written with the
 * entry, in the same transaction: shared/store/list-markers.ts), so a decision reads the lists with
 * the histories it reads anyway. Only what a decision needs: the list, when it acts, on which event
 * types, and a few words to quote.
 */
export interface ListMarker {
  /** The entry's id without its prefix (`LIST_ENTRY_ID_PREFIX`). */
  id: string;
  list: ListName;
  /** Epoch ms from which the entry acts: the feedback's own time, or when a person added it. */
  since: number;
  /** Epoch ms at which it stops acting; undefined: never. */
  expiresAt: number | undefined;
  /** The event types it acts on; undefined: every type. */
  eventTypes: readonly EventType[] | undefined;
  note: ListNote;
  /**
   * Watch entries: the clean events the identity had when the entry was made (orders not returned,
   * successful logins: signals/watched-identity.ts `keptEventsOf`), as many as a marker holds
   * (store/list-markers.ts); undefined: none (a new identity, or an entry made before this was kept).
   */
  keptAtEntry?: number | undefined;
}

export const isActiveAt = (marker: ListMarker, at: number) =>
  marker.since <= at && (marker.expiresAt === undefined || at < marker.expiresAt);

export const appliesTo = (marker: ListMarker, eventType: EventType) =>
  marker.eventTypes === undefined || marker.eventTypes.includes(eventType);

/** The note in words: `lost fraud chargeback on order o-123`, or the reason's first words. */
export const noteWords = (note: ListNote) => `${NOTE_WORDS[note.cause]}${note.ref}`;
