import { type AddressHabits, issueAddress, LARGE_PROVIDERS, type Mailbox } from './emails.ts';
import { type PersonName, personName } from './names.ts';
import type { SeededRandom } from './random.ts';

/**
 * Request bodies of the contract (2.2-2.8) for synthetic shoppers and attackers. Every event takes
 * its time `at` (epoch ms): the evaluation plays them in time order with the server's clock there.
 */
export interface Shopper extends PersonName {
  /** The account's address, made from its name (eval/emails.ts); the same on every event. */
  email: string;
  /** What the address was drawn from: the handle fixes its every choice. */
  mailbox: Mailbox;
  card: { BIN: string; last4: string; expiry: string };
  device: string;
  address: { line1: string; postalCode: string; country: string };
  customerId: string;
}

/**
 * A new shopper. The name, unless `overrides` give it, is the person's own, fixed by the customer's
 * id (eval/names.ts), and the address is made from it, fixed by the drawn handle (eval/emails.ts):
 * neither takes a draw, so the random stream is the same with names and addresses as without.
 */
export function newShopper(rng: SeededRandom, overrides: Partial<Shopper> = {}): Shopper {
  const mailbox = { handle: rng.id('user'), provider: rng.pick(LARGE_PROVIDERS) };
  const drawn = {
    card: {
      BIN: String(rng.int(400000, 559999)),
      last4: String(rng.int(1000, 9999)),
      expiry: `${String(rng.int(1, 12)).padStart(2, '0')}/${rng.int(27, 31)}`,
    },
    device: rng.id('device'),
    address: {
      line1: `${rng.int(1, 999)} ${rng.pick(['Oak', 'Elm', 'Main', 'High', 'Park'])} St`,
      postalCode: String(rng.int(10000, 99999)),
      country: 'US',
    },
    customerId: rng.id('cust'),
    ...overrides,
  };
  const shopper = { ...personName(drawn.customerId), mailbox, ...drawn };
  return { email: issueAddress(rng, shopper.mailbox, shopper), ...shopper };
}

/**
 * The account under its final name (a pattern's decision, eval/names.ts), with the address its
 * holder makes for it as `habits` say (eval/emails.ts): the address made for its first name is given
 * back, as no event carried it. `earlier` is the person's other address, where the habits vary it.
 */
export function renamed(
  rng: SeededRandom,
  account: Shopper,
  name: PersonName,
  habits?: AddressHabits,
  earlier?: string,
): Shopper {
  const named = { ...account, ...name };
  return {
    ...named,
    email: issueAddress(rng, account.mailbox, named, {
      replacing: account.email,
      ...(habits ? { habits } : {}),
      ...(earlier ? { earlier } : {}),
    }),
  };
}

export interface OrderLine {
  sku: string;
  price: number;
  quantity: number;
  category: string;
}

export function orderBody(
  rng: SeededRandom,
  shopper: Shopper,
  lines: OrderLine[],
  at: number,
  device = shopper.device,
) {
  const total = lines.reduce((sum, l) => sum + l.price * l.quantity, 0);
  return {
    intent: 'Order',
    state: 'PAID',
    providerOrderId: rng.id('order'),
    totalPrice: { currencyCode: '840', amount: total.toFixed(2) },
    lineItems: lines.map((l) => ({
      identifiers: [{ identifierType: 'SKU', identifier: l.sku }],
      title: l.sku,
      category: l.category,
      quantity: String(l.quantity),
      unitPrice: { currencyCode: '840', amount: l.price.toFixed(2) },
    })),
    customer: {
      firstName: shopper.firstName,
      lastName: shopper.surname,
      contactInformation: [
        { contactType: 'EMail', address: shopper.email },
        { contactType: 'ContactAddress', addressType: 'Shipping', address: shopper.address },
        { contactType: 'ContactAddress', addressType: 'Billing', address: shopper.address },
      ],
    },
    paymentInfo: [{ instrument: 'CC-A', ...shopper.card, cvv_result_code: 'M', avs_result_code: 'Y' }],
    deviceFingerprints: [{ deviceIdentifier: device }],
    timestamp: String(at),
  };
}

export type OrderBody = ReturnType<typeof orderBody>;

export function returnBody(
  rng: SeededRandom,
  order: OrderBody,
  at: number,
  device: string,
  refundMode = 'ORIGINAL_PAYMENT',
) {
  return {
    providerOrderId: order.providerOrderId,
    providerReturnId: rng.id('return'),
    status: 'REQUESTED',
    reason: 'Did not fit',
    returnMethod: { returnMethod: 'Drop-Off' },
    refundMode: { refundMode },
    returnedLineItems: order.lineItems.map((line) => ({
      lineItem: { identifiers: line.identifiers },
      quantity: line.quantity,
      reason: 'Did not fit',
    })),
    deviceFingerprints: [{ deviceIdentifier: device }],
    timestamp: String(at),
  };
}

export type ReturnBody = ReturnType<typeof returnBody>;

export function dispositionBody(returned: ReturnBody, condition: string, outcome: string) {
  return {
    itemDispositions: returned.returnedLineItems.map((item) => ({
      identifierType: item.lineItem.identifiers[0]!.identifierType,
      identifier: item.lineItem.identifiers[0]!.identifier,
      returnedItemCondition: condition,
      dispositionOutcome: outcome,
    })),
  };
}

export function disputeBody(rng: SeededRandom, amount: number, status: string, at: number, reason = 'FRAUD') {
  return {
    dispute: [
      {
        disputeId: rng.id('dispute'),
        disputeType: 'CHARGEBACK',
        disputeReason: reason,
        disputeStatus: status,
        disputeAmount: amount,
        timestamp: at,
      },
    ],
  };
}

/** What a signup may carry besides the e-mail: the customer's phone and billing address. */
export interface SignupContacts {
  phone?: string;
  billing?: Shopper['address'];
}

export function signupBody(
  rng: SeededRandom,
  shopper: Shopper,
  device: string,
  at: number,
  referrerID?: string,
  contacts: SignupContacts = {},
) {
  return {
    customerId: shopper.customerId,
    firstName: shopper.firstName,
    lastName: shopper.surname,
    username: shopper.email,
    contactInformation: [
      { contactType: 'EMail', address: shopper.email },
      ...(contacts.phone ? [{ contactType: 'Phone', number: contacts.phone }] : []),
      ...(contacts.billing
        ? [{ contactType: 'ContactAddress', addressType: 'Billing', address: contacts.billing }]
        : []),
    ],
    deviceFingerprints: [{ deviceIdentifier: device }],
    ...(referrerID ? { referrerID, referralCodeApplied: rng.id('ref') } : {}),
    timestamp: String(at),
  };
}

export function loginBody(shopper: Shopper, device: string, success: boolean, at: number, mfaUsed = false) {
  return {
    providerCustomerId: shopper.customerId,
    loginStatus: success ? '$success' : '$failure',
    email: shopper.email,
    username: shopper.email,
    siteDomain: 'shop.example',
    authMethod: {
      type: 'password',
      mfaUsed,
      ...(mfaUsed ? { mfaMethod: 'app_authenticator' } : {}),
      deviceFingerprints: [{ deviceIdentifier: device }],
    },
    timestamp: String(at),
  };
}

/** An account update; `newValue` is the new address of an e-mail change, else left out ('redacted'). */
export function accountBody(
  shopper: Shopper,
  changeType: string,
  device: string,
  at: number,
  newValue = 'redacted',
) {
  return {
    providerCustomerId: shopper.customerId,
    changeType,
    newValue,
    siteDomain: 'shop.example',
    deviceFingerprints: [{ deviceIdentifier: device }],
    timestamp: String(at),
  };
}
