import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so key order and whitespace never change a hash. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    // No prototype: a `__proto__` key (JSON.parse keeps it as an own field) stays a plain field.
    const sorted: Record<string, unknown> = Object.create(null);
    // Default sort: by UTF-16 code units, as `<` compares.
    for (const key of Object.keys(object).sort()) sorted[key] = sortKeys(object[key]);
    return sorted;
  }
  return value;
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Hash of a request body compared canonically, optionally ignoring top-level fields (state,
 * timestamp): SHA-256 cut to 128 bits, base64url (22 characters, not 64 hex): it is stored twice in
 * every decided record, and 128 bits are plenty to tell a replay from a different request.
 */
export function requestFingerprint(
  body: Record<string, unknown>,
  ignoredFields: readonly string[] = [],
): string {
  return fingerprintOfSorted(withoutFields(sortKeys(body) as Record<string, unknown>, ignoredFields));
}

/**
 * Both hashes a recorded event keeps (its whole body, and the body without its status fields),
 * from one canonical sort of the body: each equals requestFingerprint's.
 */
export function requestFingerprints(
  body: Record<string, unknown>,
  statusFields: readonly string[],
): { requestHash: string; stableHash: string } {
  const sorted = sortKeys(body) as Record<string, unknown>;
  return {
    requestHash: fingerprintOfSorted(sorted),
    stableHash: fingerprintOfSorted(withoutFields(sorted, statusFields)),
  };
}

/** Keeps the (sorted) key order: dropping keys from a sorted object leaves it sorted. */
function withoutFields(sorted: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  if (!fields.some((field) => Object.hasOwn(sorted, field))) return sorted;
  const kept: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(sorted)) if (!fields.includes(key)) kept[key] = sorted[key];
  return kept;
}

const fingerprintOfSorted = (sorted: Record<string, unknown>) =>
  createHash('sha256').update(JSON.stringify(sorted)).digest().subarray(0, 16).toString('base64url');
