import type { OrderRequest } from '../schemas/order.ts';
import { contactIdentities, deviceIdentities } from './contact-identities.ts';
import { type DigestIdentity, type IdentityRef, normalizeCard, uniqueIdentities } from './identities.ts';

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

export function identitiesOfOrder(order: OrderRequest, identity: DigestIdentity): OrderIdentities {
  const contacts = contactIdentities(order.customer.contactInformation, identity);
  const cards = order.paymentInfo.flatMap((payment) => {
    const normalized = normalizeCard(payment);
    return normalized ? [identity('card', normalized)] : [];
  });
  const unique = {
    emails: contacts.emails,
    cards: uniqueIdentities(cards),
    devices: deviceIdentities(identity, order.deviceFingerprints),
    billingAddresses: contacts.billingAddresses,
    shippingAddresses: contacts.shippingAddresses,
    phones: contacts.phones,
  };
  return { ...unique, all: uniqueIdentities(Object.values(unique).flat()) };
}
