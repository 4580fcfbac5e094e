import type { OrderRequest } from '../schemas/order.ts';
import {
  type IdentityRef,
  identity,
  normalizeAddress,
  normalizeCard,
  normalizeEmail,
  normalizePhone,
  uniqueIdentities,
} from './identities.ts';

/** The identities an order links together, by role. */
export interface OrderIdentities {
  emails: IdentityRef[];
  cards: IdentityRef[];
  devices: IdentityRef[];
  billingAddresses: IdentityRef[];
  shippingAddresses: IdentityRef[];
  phones: IdentityRef[];
  all: IdentityRef[];
}

export function identitiesOfOrder(order: OrderRequest): OrderIdentities {
  const contacts = order.customer.contactInformation;
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
  const cards = order.paymentInfo.flatMap((payment) => {
    const normalized = normalizeCard(payment);
    return normalized ? [identity('card', normalized)] : [];
  });
  const devices = (order.deviceFingerprints ?? []).map((d) => identity('device', d.deviceIdentifier.trim()));
  const unique = {
    emails: uniqueIdentities(emails),
    cards: uniqueIdentities(cards),
    devices: uniqueIdentities(devices),
    billingAddresses: uniqueIdentities(billingAddresses),
    shippingAddresses: uniqueIdentities(shippingAddresses),
    phones: uniqueIdentities(phones),
  };
  return { ...unique, all: uniqueIdentities(Object.values(unique).flat()) };
}
