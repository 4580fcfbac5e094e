import { createHash } from 'node:crypto';
import type { EventType } from '../contract/endpoints.ts';
import { customerIdentity } from '../identity/account-identities.ts';
import {
  type DigestIdentity,
  type IdentityKind,
  type IdentityRef,
  normalizeAddress,
  normalizeCard,
  normalizeEmail,
  normalizePhone,
} from '../identity/identities.ts';
import type { ListedIdentity, ListKind, ListName, ListSource } from '../schemas/lists.ts';
import {
  LIST_ENTRY_ID_CHARS,
  LIST_ENTRY_ID_PREFIX,
  type ListMarker,
  type ListNote,
} from '../scoring/list-marker.ts';

/**
 * A block, watch or allow list entry: one identity (kept as its digest with a masked hint, never
 * the value), its list, why, who and when, and how long and for which events it acts. Entries never
 * change once made: they are added and removed. Pure.
 */
export interface ListEntry {
  entryId: string;
  list: ListName;
  kind: ListKind;
  /** The identity's digest, as events are linked by it (shared/identity). */
  digest: string;
  /** A masked hint of the identity (`j***@example.com`, `card 411111…1234 09/27`). */
  identity: string;
  reason: string;
  source: ListSource;
  /** The console key's holder, `admin`, or the feedback rule's name. */
  createdBy: string;
  createdAt: string;
  /** From when it acts (ISO 8601): the feedback's own time, or when a person added it. */
  effectiveAt: string;
  expiresAt?: string;
  eventTypes?: EventType[];
  /** Feedback entries: what made it (`dispute:<id>`, `disposition:<returnId>`, `review:<id>`). */
  cause?: string;
  /** Feedback entries: the event it is about (`order o-123`). */
  concerns?: string;
  /** The few words a decision quotes. */
  note: ListNote;
}

/** A ListKind is an identity kind (tsc checks it here). */
const asIdentityKind = (kind: ListKind): IdentityKind => kind;

export const identityRefOf = (entry: Pick<ListEntry, 'kind' | 'digest'>): IdentityRef => ({
  kind: asIdentityKind(entry.kind),
  digest: entry.digest,
});

/** The entry as its identity's item carries it, with the kept events its identity had then. */
export function markerOf(entry: ListEntry, keptAtEntry = 0): ListMarker {
  return {
    id: entry.entryId.slice(LIST_ENTRY_ID_PREFIX.length),
    list: entry.list,
    since: Date.parse(entry.effectiveAt),
    expiresAt: entry.expiresAt === undefined ? undefined : Date.parse(entry.expiresAt),
    eventTypes: entry.eventTypes,
    note: entry.note,
    // Only a feedback rule's watch reads it (signals/watched-identity.ts): one incident on an
    // identity with a clean history; a person's or the merchant's rule's entry acts in full.
    ...(entry.list === 'watch' && entry.source === 'feedback' && keptAtEntry > 0 ? { keptAtEntry } : {}),
  };
}

export const entryIdOf = (marker: Pick<ListMarker, 'id'>) => `${LIST_ENTRY_ID_PREFIX}${marker.id}`;

/**
 * The id of the entry a cause makes on an identity: derived, so a retried or concurrent call names
 * the same entry and adds it once, and a feedback's counterpart removes exactly it. People's entries
 * (the `person` cause) are one per identity and list.
 */
export function derivedEntryId(cause: string, list: ListName, ref: IdentityRef): string {
  const digest = createHash('sha256')
    .update(`${cause}|${list}|${ref.kind}#${ref.digest}`)
    .digest('base64url');
  return `${LIST_ENTRY_ID_PREFIX}${digest.slice(0, LIST_ENTRY_ID_CHARS)}`;
}

/**
 * The identity a caller names, normalized and digested with the merchant's `identity` exactly as the
 * events are, with its masked hint.
 */
export function listedIdentityRef(
  named: ListedIdentity,
  identity: DigestIdentity,
): { ref: IdentityRef; hint: string } {
  switch (named.kind) {
    case 'email': {
      const email = normalizeEmail(named.value);
      const at = email.lastIndexOf('@');
      return { ref: identity('email', email), hint: `${email.slice(0, 1)}***${email.slice(at)}` };
    }
    case 'phone': {
      const phone = normalizePhone(named.value);
      return { ref: identity('phone', phone), hint: `phone …${phone.slice(-4)}` };
    }
    case 'device': {
      const device = named.value.trim();
      return { ref: identity('device', device), hint: `device …${lastChars(device)}` };
    }
    case 'customer':
      return {
        ref: customerIdentity(identity, named.value),
        hint: `customer …${lastChars(named.value.trim())}`,
      };
    case 'card': {
      const card = named.value;
      // The BIN and the last four digits are what a receipt shows; nothing more is kept.
      const hint =
        'paymentIdentifier' in card
          ? `card …${lastChars(card.paymentIdentifier.trim())}`
          : `card ${card.BIN}…${card.last4}${card.expiry ? ` ${card.expiry}` : ''}`;
      return { ref: identity('card', normalizeCard(card)!), hint };
    }
    case 'address': {
      const address = named.value;
      // A hint, not the address: a postal code and a country are short (a long one is cut).
      const place = [address.postalCode?.trim(), address.country?.trim()]
        .filter(Boolean)
        .map((part) => [...(part as string)].slice(0, 16).join(''))
        .join(' ');
      return {
        ref: identity('address', normalizeAddress(address)!),
        hint: `address …${place ? ` ${place}` : ''}`,
      };
    }
  }
}

const lastChars = (value: string) => [...value].slice(-4).join('');
