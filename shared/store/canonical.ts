import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so key order and whitespace never change a hash. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
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
  const kept = Object.fromEntries(Object.entries(body).filter(([k]) => !ignoredFields.includes(k)));
  return createHash('sha256').update(canonicalJson(kept)).digest().subarray(0, 16).toString('base64url');
}
