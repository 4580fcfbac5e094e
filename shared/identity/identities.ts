/**
 * Identities link events to each other: the same e-mail, card, device, address or phone seen again.
 * Values are normalized, then kept only as a digest keyed per merchant (shared/digests/identity-digests.ts), so the
 * table never holds a raw e-mail or card, nor a digest anyone could reverse or join across merchants.
 */
export const IDENTITY_KINDS = [
  'email',
  'customer',
  'device',
  'card',
  'address',
  'phone',
  'username',
  // Counters only (signups per domain), never linked: a shared domain says nothing about a person.
  'emailDomain',
  // Counters only: the merchant's signups, split over shards (account-identities.ts): what a domain's
  // share of the merchant's signups is measured against.
  'signupTraffic',
  // A signup's surname: counted, and kept by its devices for membership (a household's shared name);
  // an order's is kept by its devices only.
  'surname',
  // A signup's or order's whole name: never an item of its own, only kept by its devices for
  // membership (the same person opening another account there is no household member).
  'fullName',
  // A signup's e-mail stem (email-patterns.ts `emailStem`): never an item of its own, only kept by its
  // devices for membership (another address of the same stem there is the same person's).
  'emailStem',
] as const;
export type IdentityKind = (typeof IDENTITY_KINDS)[number];

export interface IdentityRef {
  kind: IdentityKind;
  digest: string;
  /** A network member's shared identity, as digested at event time: its network key. */
  networkKey?: string;
}

/** The same identity: same kind, same digest. */
export const sameIdentity = (a: IdentityRef, b: IdentityRef): boolean =>
  a.kind === b.kind && a.digest === b.digest;

/** Digests a normalised value for one merchant: made by identityDigests (shared/digests/identity-digests.ts). */
export type DigestIdentity = (kind: IdentityKind, normalized: string) => IdentityRef;

/** Providers that ignore dots in the local part of an address. */
const DOT_INSENSITIVE_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

export function normalizeEmail(raw: string): string {
  const lowered = raw.trim().toLowerCase();
  const at = lowered.lastIndexOf('@');
  if (at < 0) return lowered;
  let local = lowered.slice(0, at);
  let domain = lowered.slice(at + 1);
  if (domain === 'googlemail.com') domain = 'gmail.com';
  local = local.split('+')[0] ?? local;
  if (DOT_INSENSITIVE_DOMAINS.has(domain)) local = local.replaceAll('.', '');
  return `${local}@${domain}`;
}

export function emailDomain(raw: string): string {
  return normalizeEmail(raw).split('@')[1] ?? '';
}

/** A name as people write it: case, accents, spaces and punctuation do not matter. */
function normalizeName(raw: string): string {
  return raw
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/** E.164-ish: digits only, with the leading plus kept. */
export function normalizePhone(raw: string): string {
  const digits = raw.replace(/\D/g, '');
  return `+${digits}`;
}

export function normalizeAddress(address: {
  line1?: string;
  postalCode?: string;
  country?: string;
}): string | undefined {
  const line1 = (address.line1 ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
  const postal = (address.postalCode ?? '').toUpperCase().replace(/[^A-Z0-9]/g, '');
  const country = (address.country ?? '').toUpperCase().trim();
  if (!line1 && !postal) return undefined;
  return `${line1}|${postal}|${country}`;
}

/** BIN + last4 + expiry identifies a card; a merchant payment identifier does too. */
export function normalizeCard(payment: {
  BIN?: string;
  last4?: string;
  expiry?: string;
  paymentIdentifier?: string;
}): string | undefined {
  if (payment.paymentIdentifier) return `pid:${payment.paymentIdentifier.trim()}`;
  if (payment.BIN && payment.last4) return `card:${payment.BIN}:${payment.last4}:${payment.expiry ?? ''}`;
  return undefined;
}

/** Distinct identities, in first-seen order. */
export function uniqueIdentities(refs: readonly IdentityRef[]): IdentityRef[] {
  const seen = new Set<string>();
  return refs.filter((ref) => {
    const id = `${ref.kind}#${ref.digest}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** A person's surname and whole name as identities; each undefined when it normalises to nothing. */
export interface NameIdentities {
  surname: IdentityRef | undefined;
  fullName: IdentityRef | undefined;
}

export function nameIdentities(
  identity: DigestIdentity,
  firstName: string,
  lastName: string,
): NameIdentities {
  const surname = normalizeName(lastName);
  const first = normalizeName(firstName);
  return {
    surname: surname ? identity('surname', surname) : undefined,
    fullName: surname && first ? identity('fullName', `${first} ${surname}`) : undefined,
  };
}
