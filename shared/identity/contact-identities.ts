import type { ContactEntry } from '../schemas/fields.ts';
import {
  type DigestIdentity,
  type IdentityRef,
  normalizeAddress,
  normalizeEmail,
  normalizePhone,
  uniqueIdentities,
} from './identities.ts';

/** The identities a list of contact entries names, by role (orders and signups share this). */
export interface ContactIdentities {
  emails: IdentityRef[];
  phones: IdentityRef[];
  /** Billing and business addresses. */
  billingAddresses: IdentityRef[];
  shippingAddresses: IdentityRef[];
}

export function contactIdentities(
  contacts: readonly ContactEntry[],
  identity: DigestIdentity,
): ContactIdentities {
  const emails: IdentityRef[] = [];
  const phones: IdentityRef[] = [];
  const billingAddresses: IdentityRef[] = [];
  const shippingAddresses: IdentityRef[] = [];
  for (const contact of contacts) {
    if (contact.contactType === 'EMail') emails.push(identity('email', normalizeEmail(contact.address)));
    if (contact.contactType === 'Phone') phones.push(identity('phone', normalizePhone(contact.number)));
    if (contact.contactType === 'ContactAddress') {
      const normalized = normalizeAddress(contact.address);
      if (!normalized) continue;
      const ref = identity('address', normalized);
      if (contact.addressType === 'Shipping') shippingAddresses.push(ref);
      else billingAddresses.push(ref);
    }
  }
  return {
    emails: uniqueIdentities(emails),
    phones: uniqueIdentities(phones),
    billingAddresses: uniqueIdentities(billingAddresses),
    shippingAddresses: uniqueIdentities(shippingAddresses),
  };
}

/** Device identities from any number of fingerprint lists (login carries two). */
export function deviceIdentities(
  identity: DigestIdentity,
  ...lists: readonly (readonly { deviceIdentifier: string }[] | undefined)[]
): IdentityRef[] {
  return uniqueIdentities(
    lists.flatMap((list) => (list ?? []).map((d) => identity('device', d.deviceIdentifier.trim()))),
  );
}
