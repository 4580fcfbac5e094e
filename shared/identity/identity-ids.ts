import { IDENTITY_KINDS, type IdentityKind, type IdentityRef } from './identities.ts';

/**
 * Records keep the identities an event touched as `kind#digest` strings (OrderRecord.identities), so
 * later feedback (returns, dispositions, disputes) lands on exactly the same counter items.
 */
export const identityId = (ref: IdentityRef) => `${ref.kind}#${ref.digest}`;

const KINDS = new Set<string>(IDENTITY_KINDS);

export function parseIdentityId(id: string): IdentityRef {
  const separator = id.indexOf('#');
  const kind = id.slice(0, separator);
  if (separator < 1 || !KINDS.has(kind)) throw new Error(`Not a stored identity id: kind "${kind}"`);
  return { kind: kind as IdentityKind, digest: id.slice(separator + 1) };
}

export const parseIdentityIds = (ids: readonly string[]) => ids.map(parseIdentityId);
