import type { BasketLine } from './catalog.ts';
import type { Address, Card, Person } from './people.ts';

/**
 * Request bodies as a merchant's integration sends them (openapi.json):
 * optional fields are left out where integrations commonly lack them, never filled with placeholders.
 */
const SHOP_DOMAIN = 'www.harborandpine.com';
const USD = '840';

const money = (amount: number) => ({ currencyCode: USD, amount: amount.toFixed(2) });
const devices = (device: string | undefined) =>
  device ? { deviceFingerprints: [{ deviceIdentifier: device }] } : {};
/** Live signups and logins often carry no time (the contract's own shape): the service dates them. */
const optionalTime = (at: number | undefined) => (at === undefined ? {} : { timestamp: String(at) });

export function signupBody(
  person: Person,
  options: { at?: number; device?: string; withPhone: boolean; withAddress: boolean; referrerID?: string },
): object {
  return {
    customerId: person.customerId,
    firstName: person.firstName,
    lastName: person.lastName,
    username: person.username,
    website: SHOP_DOMAIN,
    ...(options.referrerID ? { referrerID: options.referrerID, referralID: 'refer-a-friend' } : {}),
    contactInformation: [
      { contactType: 'EMail', address: person.email },
      ...(options.withPhone && person.phone ? [{ contactType: 'Phone', number: person.phone }] : []),
      ...(options.withAddress
        ? [{ contactType: 'ContactAddress', addressType: 'Billing', address: person.home }]
        : []),
    ],
    ...devices(options.device),
    ...optionalTime(options.at),
  };
}

export interface LoginAttempt {
  /** The account tried: the person's id, or what they typed when no account has it. */
  providerCustomerId: string;
  success: boolean;
  device?: string;
  authType: 'password' | 'sso' | 'magic_link' | 'passkey' | 'oauth';
  mfa?: 'app_authenticator' | 'sms' | 'email';
  at?: number;
}

export function loginBody(person: Person, attempt: LoginAttempt): object {
  return {
    providerCustomerId: attempt.providerCustomerId,
    loginStatus: attempt.success ? '$success' : '$failure',
    email: person.email,
    username: person.username,
    siteDomain: SHOP_DOMAIN,
    ...(attempt.mfa === 'sms' && person.phone ? { verificationPhoneNumber: person.phone } : {}),
    authMethod: {
      type: attempt.authType,
      ...(attempt.mfa ? { mfaUsed: true, mfaMethod: attempt.mfa } : {}),
    },
    ...devices(attempt.device),
    ...optionalTime(attempt.at),
  };
}

export interface OrderShape {
  providerOrderId: string;
  person: Person;
  lines: readonly BasketLine[];
  shipTo: Address;
  card: Card;
  /** Part paid with a gift card. */
  giftCard?: number;
  device?: string;
  /** When the shopper placed it; the integration sends it a moment later. */
  placedAt: number;
  /** Who it is addressed to when it is a gift. */
  recipient?: { firstName: string; lastName: string };
}

export function orderBody(order: OrderShape): object {
  const subtotal = order.lines.reduce((sum, l) => sum + l.price * l.quantity, 0);
  const shipping = subtotal >= 75 ? 0 : 5.99;
  const taxes = Math.round(subtotal * 0.0825 * 100) / 100;
  const total = subtotal + shipping + taxes;
  const { person } = order;
  const billingElsewhere = order.shipTo !== person.home;
  return {
    intent: 'Order',
    state: 'PAID',
    providerCartId: `cart-${order.providerOrderId.slice(3)}`,
    providerOrderId: order.providerOrderId,
    totalPrice: money(total),
    totalTaxes: money(taxes),
    totalShippingPrice: money(shipping),
    lineItems: order.lines.map((l) => ({
      identifiers: [
        { identifierType: 'SKU', identifier: l.sku },
        ...(l.upc ? [{ identifierType: 'UPC', identifier: l.upc }] : []),
      ],
      title: l.title,
      category: l.category,
      brand: l.brand,
      ...(l.size ? { size: l.size } : {}),
      quantity: String(l.quantity),
      unitPrice: money(l.price),
    })),
    customer: {
      firstName: person.firstName,
      lastName: person.lastName,
      contactInformation: [
        { contactType: 'EMail', address: person.email },
        { contactType: 'ContactAddress', addressType: 'Shipping', address: order.shipTo },
        ...(billingElsewhere
          ? [{ contactType: 'ContactAddress', addressType: 'Billing', address: person.home }]
          : []),
        ...(person.phone ? [{ contactType: 'Phone', number: person.phone }] : []),
      ],
    },
    ...(order.recipient
      ? { customData: { giftRecipient: `${order.recipient.firstName} ${order.recipient.lastName}` } }
      : {}),
    paymentInfo: [
      ...(order.giftCard
        ? [{ instrument: 'GiftCard', amount: money(order.giftCard), giftCardUsed: 'True' }]
        : []),
      {
        instrument: order.card.instrument,
        BIN: order.card.BIN,
        last4: order.card.last4,
        expiry: order.card.expiry,
        amount: money(total - (order.giftCard ?? 0)),
        method: 'NotPresent',
        postalCode: person.home.postalCode,
        avs_result_code: person.home.country === 'US' ? 'Y' : 'G',
        cvv_result_code: 'M',
        paymentStatus: 'captured',
      },
    ],
    ...devices(order.device),
    timestamp: String(order.placedAt),
  };
}

export interface ReturnShape {
  providerReturnId: string;
  providerOrderId: string;
  lines: readonly BasketLine[];
  reason: string;
  itemReason: string;
  method: 'Drop-Off' | 'Pickup' | 'In-Store';
  refund: 'ORIGINAL_PAYMENT' | 'STORE_CREDIT' | 'EXCHANGE';
  device?: string;
  at: number;
}

export function returnBody(shape: ReturnShape): object {
  return {
    providerOrderId: shape.providerOrderId,
    providerReturnId: shape.providerReturnId,
    status: 'REQUESTED',
    reason: shape.reason,
    returnMethod: { returnMethod: shape.method },
    refundMode: { refundMode: shape.refund },
    returnedLineItems: shape.lines.map((l) => ({
      lineItem: { identifiers: [{ identifierType: 'SKU', identifier: l.sku }] },
      category: l.category,
      quantity: String(l.quantity),
      reason: shape.itemReason,
    })),
    ...devices(shape.device),
    timestamp: String(shape.at),
  };
}

export function dispositionBody(
  lines: readonly BasketLine[],
  inspection: { condition: string; outcome: string; warehouse: string; note?: string },
): object {
  return {
    itemDispositions: lines.map((l) => ({
      identifierType: 'SKU',
      identifier: l.sku,
      returnedItemCondition: inspection.condition,
      dispositionOutcome: inspection.outcome,
      warehouseIdentifier: inspection.warehouse,
      ...(inspection.note ? { inspectionNote: inspection.note } : {}),
    })),
  };
}

export function disputeBody(dispute: {
  disputeId: string;
  type: 'CHARGEBACK' | 'INQUIRY';
  reason: string;
  subreason?: string;
  status: 'OPEN' | 'RESPONDED' | 'WON';
  amount: number;
  at: number;
}): object {
  return {
    dispute: [
      {
        disputeId: dispute.disputeId,
        disputeType: dispute.type,
        disputeReason: dispute.reason,
        ...(dispute.subreason ? { disputeSubreason: dispute.subreason } : {}),
        disputeStatus: dispute.status,
        disputeAmount: Math.round(dispute.amount * 100) / 100,
        timestamp: dispute.at,
      },
    ],
  };
}

export function accountBody(
  person: Person,
  change: { changeType: string; newValue?: string; device?: string; at: number },
): object {
  return {
    providerCustomerId: person.customerId,
    changeType: change.changeType,
    previousValue: 'redacted',
    ...(change.newValue ? { newValue: change.newValue } : {}),
    siteDomain: SHOP_DOMAIN,
    ...devices(change.device),
    timestamp: String(change.at),
  };
}

/** The total an order body charges (for dispute amounts). */
export function orderTotal(body: object): number {
  return Number((body as { totalPrice: { amount: string } }).totalPrice.amount);
}
