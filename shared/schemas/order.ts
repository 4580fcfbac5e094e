import * as z from 'zod';
import {
  apiEnum,
  cardBin,
  cardExpiry,
  cardLast4,
  contactInformation,
  customData,
  decimalAmount,
  deviceFingerprints,
  identifier,
  idText,
  jsonValue,
  LIMITS,
  money,
  quantity,
  text,
  timestampString,
} from './fields.ts';

/** POST /v1/order request body (docs/api.md). */
const ORDER_STATES = ['PAID', 'AUTHORIZED', 'PENDING'] as const;

const trueFalse = () => apiEnum(['True', 'False']);

const lineItemSchema = z.strictObject({
  identifiers: z.array(identifier()).min(1).max(LIMITS.identifiers),
  title: text(),
  category: text(),
  brand: text().optional(),
  colour: text().optional(),
  size: text().optional(),
  quantity: quantity(),
  unitPrice: money(),
  discounts: z.array(jsonValue).max(LIMITS.discounts).optional(),
});

const paymentEntrySchema = z.strictObject({
  amount: money().optional(),
  instrument: text().optional(),
  last4: cardLast4().optional(),
  BIN: cardBin().optional(),
  paymentIdentifier: idText().optional(),
  postalCode: text().optional(),
  method: apiEnum(['NotPresent', 'Swipe', 'Tap', 'Dip']).optional(),
  auth: text().optional(),
  AID: text().optional(),
  giftCardUsed: trueFalse().optional(),
  loyalty_membership: trueFalse().optional(),
  cvv_result_code: text().optional(),
  avs_result_code: text().optional(),
  paymentStatus: text().optional(),
  expiry: cardExpiry().optional(),
});

export const orderRequestSchema = z.strictObject({
  intent: z.literal('Order'),
  state: apiEnum(ORDER_STATES),
  providerCartId: idText().optional(),
  providerOrderId: idText(),
  totalPrice: money(),
  totalTaxes: money().optional(),
  totalShippingPrice: money().optional(),
  totalDiscounts: z
    .array(z.strictObject({ amount: decimalAmount() }))
    .max(LIMITS.discounts)
    .optional(),
  lineItems: z.array(lineItemSchema).min(1).max(LIMITS.lineItems),
  customer: z.strictObject({
    firstName: text(),
    lastName: text(),
    fullName: text().optional(),
    contactInformation: contactInformation(),
  }),
  merchant: z
    .strictObject({
      brand: text().optional(),
      providerMerchantId: idText().optional(),
      locationInfo: z.record(z.string().max(256), jsonValue).optional(),
    })
    .optional(),
  paymentInfo: z.array(paymentEntrySchema).max(LIMITS.payments),
  deviceFingerprints: deviceFingerprints().optional(),
  customData: customData().optional(),
  timestamp: timestampString(),
});

export type OrderRequest = z.infer<typeof orderRequestSchema>;
