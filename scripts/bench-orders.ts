/**
 * Orders the benchmarks send: one line item, an e-mail, phone, shipping address, card and device,
 * every identity derived from `id` (so reruns are alike) except the address, which the caller picks
 * (one shared address, or one per order).
 */
export function orderBody(
  id: string,
  at: number,
  address: { line1: string; postalCode: string; country: string },
) {
  return {
    intent: 'Order',
    state: 'PAID',
    providerOrderId: `order-${id}`,
    providerCartId: `cart-${id}`,
    totalPrice: { currencyCode: '840', amount: '49.99' },
    lineItems: [
      {
        identifiers: [{ identifierType: 'SKU', identifier: 'sku-1' }],
        title: 'Item',
        category: 'Apparel',
        quantity: '1',
        unitPrice: { currencyCode: '840', amount: '49.99' },
      },
    ],
    customer: {
      firstName: 'Bench',
      lastName: 'Shopper',
      contactInformation: [
        { contactType: 'EMail', address: `shopper-${id}@example.com` },
        { contactType: 'Phone', number: `+1555${String(hash(`${id}p`) % 10_000_000).padStart(7, '0')}` },
        { contactType: 'ContactAddress', addressType: 'Shipping', address },
      ],
    },
    paymentInfo: [
      {
        instrument: 'CC-A',
        BIN: String(400000 + (hash(id) % 99999)),
        last4: String(1000 + (hash(`${id}l`) % 8999)),
        expiry: '12/29',
      },
    ],
    deviceFingerprints: [{ deviceIdentifier: `device-${id}` }],
    timestamp: String(at),
  };
}

export function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}
