import * as z from 'zod';
import {
  apiEnum,
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

/** POST /v1/order request body (contract 2.2). */
export const ORDER_STATES = ['PAID', 'AUTHORIZED', 'PENDING'] as const;

const trueFalse = () => apiEnum(['True', 'False']);

export const lineItemSchema = z.strictObject({
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

export const paymentEntrySchema = z.strictObject({
  amount: money().optional(),
  instrument: text().optional(),
  last4: z
    .string()
    .max(4)
    .regex(/^\d{4}$/, 'must be the last 4 digits of the card')
    .meta({ examples: ['4242'] })
    .optional(),
  BIN: z
    .string()
    .max(8)
    .regex(/^\d{6,8}$/, 'must be a 6 to 8 digit bank identification number')
    .meta({ examples: ['424242', '42424242'] })
    .optional(),
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
  expiry: z
    .string()
    .max(5)
    .regex(/^(0[1-9]|1[0-2])\/\d{2}$/, 'must be MM/YY')
    .meta({ examples: ['12/29'] })
    .optional(),
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
export type OrderLineItem = z.infer<typeof lineItemSchema>;
export type PaymentEntry = z.infer<typeof paymentEntrySchema>;
