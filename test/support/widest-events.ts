import { randomInt } from 'node:crypto';
import { LIMITS } from '../../shared/schemas/fields.ts';
import { humanEmail, humanWord } from './account-fixtures.ts';
import type { TestApi } from './api.ts';
import { disputeEntry, type OrderBody } from './commerce.ts';
import type { EndpointFixture } from './endpoint-fixtures.ts';
import { orderBody, uid } from './fixtures.ts';

/**
 * The widest requests the schemas allow, one per endpoint: every bounded array at its bound (20
 * contacts, 20 devices, 20 cards, 250 lines, 250 returned lines and dispositions, 100 disputes), each
 * identity distinct, and free text filled until the body is just under the API's 256 KiB limit.
 * For test/wide-events.test.ts and `npm run fuzz`.
 */
const MAX_BODY_BYTES = 256 * 1024;
/** What the padding leaves free under the limit: room for ids a caller changes after building. */
const HEADROOM_BYTES = 2 * 1024;
const MAX_TEXT = 1024;

const bytesOf = (body: unknown) => Buffer.byteLength(JSON.stringify(body));

/**
 * Lengthens the text fields `slots` name (each a setter taking a length) evenly, up to 1,024
 * characters each, until the body is within HEADROOM_BYTES of the limit.
 */
function fillText<T>(body: T, slots: readonly ((length: number) => void)[], base: number): T {
  const free = MAX_BODY_BYTES - HEADROOM_BYTES - bytesOf(body);
  const each = Math.min(MAX_TEXT - base, Math.floor(free / Math.max(1, slots.length)));
  if (each > 0) for (const set of slots) set(base + each);
  return body;
}

/**
 * Each returned line's reason at which a 250-line return's record still fits DynamoDB's 400 KB item:
 * at the body limit (1,000 characters) it does not, and the return is answered 413.
 */
export const STORABLE_REASON_LENGTH = 200;

const filler = (prefix: string, length: number) => prefix + 'x'.repeat(Math.max(0, length - prefix.length));

/** 20 contacts: the e-mails, shipping and billing addresses and phones of one customer, all distinct. */
function widestContacts(tag: string) {
  return Array.from({ length: LIMITS.contacts }, (_, i) => {
    if (i % 4 === 0) return { contactType: 'EMail', address: humanEmail(`${tag}-${i}.example.com`) };
    if (i % 4 === 3) return { contactType: 'Phone', number: `+1 415 555 ${String(1000 + i)}` };
    return {
      contactType: 'ContactAddress',
      addressType: i % 4 === 1 ? 'Shipping' : 'Billing',
      address: { line1: `${i} ${tag} Street`, city: 'Springfield', postalCode: '10001', country: 'US' },
    };
  });
}

const widestDevices = (tag: string) =>
  Array.from({ length: LIMITS.fingerprints }, (_, i) => ({ deviceIdentifier: `${tag}-device-${i}` }));

/** An order with 20 contacts, 20 devices, 20 cards and 250 lines, just under the body limit. */
export function widestOrder(): OrderBody {
  const tag = uid('wide');
  const base = orderBody({
    items: Array.from({ length: LIMITS.lineItems }, (_, i) => ({ sku: `${tag}-sku-${i}` })),
  });
  // A BIN of this order's own: cards are not hashed per order, and another test's lists must not touch them.
  const bin = 400000 + randomInt(500_000);
  const order: OrderBody = {
    ...base,
    customer: { ...base.customer, contactInformation: widestContacts(tag) as never },
    paymentInfo: Array.from({ length: LIMITS.payments }, (_, i) => ({
      instrument: 'CC-A',
      BIN: String(bin),
      last4: String(1000 + i),
      expiry: '12/29',
    })),
    deviceFingerprints: widestDevices(tag),
  };
  return fillText(
    order,
    order.lineItems.map((line) => (length: number) => {
      line.title = filler('Item ', length);
    }),
    'Item'.length,
  );
}

/**
 * A return of every line of `order`, its reasons filling it to just under the body limit; or, with
 * `reasonLength`, each line's reason that long.
 */
export function widestReturn(order: OrderBody, options: { reasonLength?: number } = {}) {
  const tag = uid('wide-return');
  const body = {
    providerOrderId: order.providerOrderId,
    providerReturnId: tag,
    status: 'REQUESTED',
    reason: 'Changed my mind',
    returnMethod: { returnMethod: 'Drop-Off' },
    refundMode: { refundMode: 'ORIGINAL_PAYMENT' },
    returnedLineItems: order.lineItems.slice(0, LIMITS.returnedItems).map((line) => ({
      lineItem: { identifiers: line.identifiers },
      quantity: '1',
      reason: 'Did not fit',
    })),
    deviceFingerprints: widestDevices(tag),
    timestamp: String(Date.now() - 1_000),
  };
  const reasons = body.returnedLineItems.map((line) => (length: number) => {
    line.reason = filler('Did not fit ', length);
  });
  if (options.reasonLength === undefined) return fillText(body, reasons, 'Did not fit'.length);
  for (const set of reasons) set(options.reasonLength);
  return body;
}

/** Every line of a return disposed of as confirmed abuse (EMPTY_BOX, REMOVE_SUSPECT_ABUSE). */
export function widestDisposition(order: OrderBody) {
  const body = {
    itemDispositions: order.lineItems.slice(0, LIMITS.dispositions).map((line) => ({
      identifierType: line.identifiers[0]!.identifierType,
      identifier: line.identifiers[0]!.identifier,
      returnedItemCondition: 'EMPTY_BOX',
      dispositionOutcome: 'REMOVE_SUSPECT_ABUSE',
      returnMethod: { returnMethod: 'DROPOFF' },
      refundMode: { refundMode: 'ORIGINAL_PAYMENT' },
      warehouseIdentifier: 'wh-1',
      inspectionNote: '',
    })),
  };
  return fillText(
    body,
    body.itemDispositions.map((item) => (length: number) => {
      item.inspectionNote = filler('Box arrived empty ', length);
    }),
    0,
  );
}

/** 100 distinct chargebacks, each LOST for fraud. */
export function widestDispute() {
  const now = Date.now();
  const body = {
    dispute: Array.from({ length: LIMITS.disputes }, (_, i) => ({
      ...disputeEntry({ disputeStatus: 'LOST', disputeReason: '10.4', timestamp: now - 10_000 + i }),
      disputeSubreason: '',
    })),
  };
  return fillText(
    body,
    body.dispute.map((entry) => (length: number) => {
      entry.disputeSubreason = filler('card not present ', length);
    }),
    0,
  );
}

/** A signup with 20 contacts and 20 devices. */
export function widestSignup() {
  const tag = uid('wide-signup');
  const body = {
    customerId: tag,
    firstName: 'Test',
    lastName: 'Person',
    username: humanWord(),
    website: 'shop.example.com',
    referralCodeApplied: 'SPRING',
    referrerID: uid('referrer'),
    referralID: 'spring-campaign',
    contactInformation: widestContacts(tag),
    deviceFingerprints: widestDevices(tag),
    timestamp: String(Date.now() - 1_000),
  };
  const addresses = body.contactInformation.flatMap((c) =>
    'addressType' in c && typeof c.address === 'object' ? [c.address as Record<string, string>] : [],
  );
  return fillText(
    body,
    addresses.map((address) => (length: number) => {
      address.line2 = filler('Apartment ', length);
    }),
    0,
  );
}

/** A login with 20 devices at the top level and 20 inside authMethod. */
export function widestLogin() {
  const tag = uid('wide-login');
  return {
    providerCustomerId: tag,
    loginStatus: '$success',
    email: humanEmail(),
    username: humanWord(),
    siteDomain: 'shop.example.com',
    verificationPhoneNumber: '+1 415 555 0100',
    authMethod: {
      type: 'password',
      mfaUsed: true,
      mfaMethod: 'app_authenticator',
      deviceFingerprints: widestDevices(`${tag}-auth`),
    },
    deviceFingerprints: widestDevices(tag),
    timestamp: String(Date.now() - 1_000),
  };
}

/** An account update with 20 devices and both values at the text bound. */
export function widestAccountUpdate() {
  const tag = uid('wide-account');
  return {
    providerCustomerId: tag,
    changeType: 'ADDRESS_ADD',
    previousValue: filler('old ', MAX_TEXT),
    newValue: filler('new ', MAX_TEXT),
    siteDomain: 'shop.example.com',
    deviceFingerprints: widestDevices(tag),
    timestamp: String(Date.now() - 1_000),
  };
}

/**
 * The widest request of each endpoint as fuzz fixtures: orders, returns, signups, logins and account
 * updates fresh each time; the dispute and the disposition one fixed body each (on a widest order
 * and its return), recorded here once, so a valid repeat replays instead of writing thousands of list
 * entries again (two such first calls at once race for ~10 s, and the loser may answer 503).
 */
export async function prepareWidestFixtures(api: TestApi, apiKey: string): Promise<EndpointFixture[]> {
  const order = widestOrder();
  const placed = await api.post('/v1/order', order, { apiKey });
  const ret = widestReturn(order, { reasonLength: STORABLE_REASON_LENGTH });
  const returned = await api.post('/v1/return', ret, { apiKey });
  if (placed.status !== 200 || returned.status !== 200) {
    throw new Error(`widest fixtures: order ${placed.status}, return ${returned.status}`);
  }
  const dispute = widestDispute();
  const disposition = widestDisposition(order);
  const disputePath = `/v1/order/dispute/${encodeURIComponent(order.providerOrderId)}`;
  const dispositionPath = `/v1/return/disposition/${encodeURIComponent(ret.providerReturnId)}`;
  for (const [path, body] of [
    [disputePath, dispute],
    [dispositionPath, disposition],
  ] as const) {
    const recorded = await api.post(path, body, { apiKey });
    if (recorded.status !== 200) throw new Error(`widest fixtures: ${path} ${recorded.status}`);
  }
  return [
    { endpoint: 'order', validRequest: () => ({ path: '/v1/order', body: widestOrder() }) },
    {
      endpoint: 'return',
      validRequest: () => ({
        path: '/v1/return',
        body: widestReturn(order, { reasonLength: STORABLE_REASON_LENGTH }),
      }),
    },
    {
      endpoint: 'disposition',
      validRequest: () => ({
        path: dispositionPath,
        body: structuredClone(disposition),
      }),
    },
    {
      endpoint: 'dispute',
      validRequest: () => ({
        path: disputePath,
        body: structuredClone(dispute),
      }),
    },
    { endpoint: 'signup', validRequest: () => ({ path: '/v1/evaluate/signup', body: widestSignup() }) },
    { endpoint: 'login', validRequest: () => ({ path: '/v1/evaluate/login', body: widestLogin() }) },
    {
      endpoint: 'account',
      validRequest: () => ({ path: '/v1/evaluate/account', body: widestAccountUpdate() }),
    },
  ];
}
