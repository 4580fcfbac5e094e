import { randomUUID } from 'node:crypto';

export const uid = (prefix = 'id') => `${prefix}-${randomUUID().slice(0, 8)}`;

export interface OrderOptions {
  providerOrderId?: string;
  email?: string;
  device?: string;
  /** The shipping address's street (the first line). */
  street?: string;
  /** The customer's name ('Test Shopper' unless given: every default order names the same person). */
  name?: { first: string; last: string };
  card?: { BIN: string; last4: string; expiry?: string };
  amount?: string;
  timestamp?: number;
  items?: { sku: string; quantity?: number; price?: string; category?: string }[];
}

/** A valid order body (docs/api.md); every option defaults to something unique. */
export function orderBody(options: OrderOptions = {}) {
  const items = options.items ?? [{ sku: uid('sku'), quantity: 1, price: '49.99' }];
  return {
    intent: 'Order',
    state: 'PAID',
    providerOrderId: options.providerOrderId ?? uid('order'),
    providerCartId: uid('cart'),
    totalPrice: { currencyCode: '840', amount: options.amount ?? '49.99' },
    lineItems: items.map((item) => ({
      identifiers: [{ identifierType: 'SKU', identifier: item.sku }],
      title: 'Item',
      category: item.category ?? 'Apparel',
      quantity: String(item.quantity ?? 1),
      unitPrice: { currencyCode: '840', amount: item.price ?? '49.99' },
    })),
    customer: {
      firstName: options.name?.first ?? 'Test',
      lastName: options.name?.last ?? 'Shopper',
      contactInformation: [
        { contactType: 'EMail', address: options.email ?? `${uid('shopper')}@example.com` },
        {
          contactType: 'ContactAddress',
          addressType: 'Shipping',
          address: {
            line1: options.street ?? `${uid('street')} Main St`,
            postalCode: '10001',
            country: 'US',
          },
        },
      ],
    },
    paymentInfo: [
      {
        instrument: 'CC-A',
        BIN: options.card?.BIN ?? String(400000 + Math.floor(Math.random() * 99999)),
        last4: options.card?.last4 ?? String(1000 + Math.floor(Math.random() * 8999)),
        expiry: options.card?.expiry ?? '12/29',
      },
    ],
    deviceFingerprints: [{ deviceIdentifier: options.device ?? uid('device') }],
    timestamp: String(options.timestamp ?? Date.now() - 60_000),
  };
}
