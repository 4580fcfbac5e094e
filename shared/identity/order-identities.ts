import type { OrderRequest } from '../schemas/order.ts';
import { contactIdentities, deviceIdentities } from './contact-identities.ts';
import {
  type DigestIdentity,
  type IdentityRef,
  type NameIdentities,
  nameIdentities,
  normalizeCard,
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
  /** Every identity above: what the order reads, counts and links. */
  all: IdentityRef[];
  /** The customer's name: only its devices keep it, for membership (signals/household.ts). */
  name: NameIdentities;
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
  return {
    ...unique,
    all: uniqueIdentities(Object.values(unique).flat()),
    name: nameIdentities(identity, order.customer.firstName, order.customer.lastName),
  };
}
