/**
 * The identities linked to an identity (e-mails per card, accounts per device, ...), in fixed
 * space whatever its history. Per linked kind, an item keeps
 * - `k_<kind>`: a DynamoDB number set of the 16-bit fingerprints of the first LINK_MEMBERS linked
 *   identities (ADD is a union: commutative, idempotent, so racing writers never lose a member);
 * - `s_<kind>`: once more than LINK_MEMBERS were linked, a HyperLogLog sketch of all of them
 *   (64 registers of 4 bits, 32 bytes, standard error about 13%).
 * Counts are exact up to LINK_MEMBERS and estimated above (never below LINK_MEMBERS). Membership
 * (`isLinked`) is exact for the first LINK_MEMBERS members; a later one reads as not linked. The
 * sketch is rewritten whole by the write that grows it, so of two writers racing on one saturated
 * identity the later may drop the other's increment: counts above the cap are approximate anyway.
 * Only the pairs scoring reads are kept (LINKS_READ). Pure functions, shared by writer and reader.
 */
import type { IdentityKind } from '../identity/identities.ts';
import { fingerprintOf } from './distinct-windows.ts';

export const LINK_MEMBERS = 8;

/** Which linked kinds are kept per identity kind: the ones signals read (shared/scoring/signals). */
const LINKS_READ: Partial<Record<IdentityKind, readonly IdentityKind[]>> = {
  card: ['email'],
  device: ['email', 'customer', 'address', 'surname', 'fullName', 'emailStem'],
  phone: ['customer'],
  address: ['customer'],
  email: ['customer'],
  customer: ['device', 'phone', 'address'],
};

export const keepsLinks = (kind: IdentityKind, linked: IdentityKind): boolean =>
  LINKS_READ[kind]?.includes(linked) ?? false;

/**
 * Pairs read only for membership, never counted: their first LINK_MEMBERS members and no sketch.
 * A device's addresses, surnames and full names say whether an event comes from its household
 * (household.ts), which is among the first it saw; its e-mail stems whether a signup's address is
 * another of an earlier account's holder; a ring device's hundredth drop or name needs no room on
 * the item.
 */
const MEMBERSHIP_ONLY: Partial<Record<IdentityKind, readonly IdentityKind[]>> = {
  device: ['address', 'surname', 'fullName', 'emailStem'],
};

export const countsLinks = (kind: IdentityKind, linked: IdentityKind): boolean =>
  !(MEMBERSHIP_ONLY[kind]?.includes(linked) ?? false);

export const membersAttribute = (kind: string) => `k_${kind}`;
export const sketchAttribute = (kind: string) => `s_${kind}`;
/** Link sets of earlier versions (every digest, up to 200 per kind): removed on the next write. */
export const isLegacyLinkSet = (name: string) => name.startsWith('l_');

const REGISTERS = 64;
const SKETCH_BYTES = REGISTERS / 2;
const ALPHA = 0.709; // HyperLogLog's bias correction for 64 registers

function members(item: Record<string, unknown> | undefined, kind: string): Set<number> {
  const value = item?.[membersAttribute(kind)];
  return value instanceof Set ? (value as Set<number>) : new Set();
}

function sketchOf(item: Record<string, unknown> | undefined, kind: string): Uint8Array | undefined {
  const value = item?.[sketchAttribute(kind)];
  return value instanceof Uint8Array && value.length === SKETCH_BYTES ? value : undefined;
}

const register = (sketch: Uint8Array, index: number) => (sketch[index >> 1]! >> ((index & 1) * 4)) & 15;

/** Folds one fingerprint in: its low 6 bits pick the register, the rank of the other 10 is kept. */
function fold(sketch: Uint8Array, fingerprint: number): void {
  const index = fingerprint & (REGISTERS - 1);
  // Leading zeros of the 10 remaining bits, plus one: 1 to 11.
  const rank = Math.clz32(fingerprint >>> 6) - 21;
  if (rank <= register(sketch, index)) return;
  const shift = (index & 1) * 4;
  sketch[index >> 1] = (sketch[index >> 1]! & ~(15 << shift)) | (rank << shift);
}

function estimate(sketch: Uint8Array): number {
  let sum = 0;
  let zeros = 0;
  for (let i = 0; i < REGISTERS; i++) {
    const r = register(sketch, i);
    sum += 2 ** -r;
    if (r === 0) zeros++;
  }
  const raw = (ALPHA * REGISTERS * REGISTERS) / sum;
  // Small range: linear counting over the empty registers is the better estimate.
  return Math.round(raw <= 2.5 * REGISTERS && zeros > 0 ? REGISTERS * Math.log(REGISTERS / zeros) : raw);
}

/** Distinct identities of `kind` linked to the item. */
export function linkedCount(item: Record<string, unknown> | undefined, kind: string): number {
  const own = members(item, kind).size;
  const sketch = sketchOf(item, kind);
  return sketch ? Math.max(own, estimate(sketch)) : own;
}

export function isLinked(item: Record<string, unknown> | undefined, kind: string, digest: string): boolean {
  return members(item, kind).has(fingerprintOf(digest));
}

/**
 * What one write changes for newly seen links of `kind`: fingerprints to ADD to the member set,
 * and, when they are `counted`, the whole sketch to SET once the set is full (undefined when it does
 * not change).
 */
export function linkWrite(
  stored: Record<string, unknown> | undefined,
  kind: string,
  digests: Iterable<string>,
  counted = true,
): { add: number[]; sketch: Uint8Array | undefined } {
  const current = members(stored, kind);
  const fresh = [...new Set([...digests].map(fingerprintOf))].filter((f) => !current.has(f));
  const room = Math.max(0, LINK_MEMBERS - current.size);
  const add = fresh.slice(0, room);
  const overflow = fresh.slice(room);
  if (overflow.length === 0 || !counted) return { add, sketch: undefined };
  const before = sketchOf(stored, kind);
  const sketch = before ? Uint8Array.from(before) : new Uint8Array(SKETCH_BYTES);
  // The first sketch also holds the members, so it estimates every link.
  for (const f of [...(before ? [] : [...current, ...add]), ...overflow]) fold(sketch, f);
  const changed = !before || sketch.some((byte, i) => byte !== before[i]);
  return { add, sketch: changed ? sketch : undefined };
}
