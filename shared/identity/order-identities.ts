import type { OrderRequest } from '../schemas/order.ts';
import { contactIdentities, deviceIdentities } from './contact-identities.ts';
import { type IdentityRef, identity, normalizeCard, uniqueIdentities } from './identities.ts';

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
  const contacts = contactIdentities(order.customer.contactInformation);
  const cards = order.paymentInfo.flatMap((payment) => {
    const normalized = normalizeCard(payment);
    return normalized ? [identity('card', normalized)] : [];
  });
  const unique = {
    emails: contacts.emails,
    cards: uniqueIdentities(cards),
    devices: deviceIdentities(order.deviceFingerprints),
    billingAddresses: contacts.billingAddresses,
    shippingAddresses: contacts.shippingAddresses,
    phones: contacts.phones,
  };
  return { ...unique, all: uniqueIdentities(Object.values(unique).flat()) };
}
