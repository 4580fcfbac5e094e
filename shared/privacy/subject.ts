import type { IdentityRef } from '../identity/identities.ts';
import { uniqueIdentities } from '../identity/identities.ts';
import { listedIdentityRef } from '../lists/entries.ts';
import type { ListedIdentity } from '../schemas/lists.ts';
import type { PrivacySubject } from '../schemas/privacy.ts';

/**
 * The identities a privacy request names, normalised and digested exactly as events are: through
 * the lists' own reading of a named identity (shared/lists/entries.ts), which calls the digest
 * function the events call. Pure.
 */
export function subjectIdentities(subject: PrivacySubject): IdentityRef[] {
  const named: ListedIdentity[] = [
    ...(subject.customerIds ?? []).map((value) => ({ kind: 'customer' as const, value })),
    ...(subject.emails ?? []).map((value) => ({ kind: 'email' as const, value })),
    ...(subject.phones ?? []).map((value) => ({ kind: 'phone' as const, value })),
    ...(subject.cards ?? []).map((value) => ({ kind: 'card' as const, value })),
    ...(subject.devices ?? []).map((value) => ({ kind: 'device' as const, value })),
    ...(subject.addresses ?? []).map((value) => ({ kind: 'address' as const, value })),
  ];
  return uniqueIdentities(named.map((identity) => listedIdentityRef(identity).ref));
}
