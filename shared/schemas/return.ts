import * as z from 'zod';
import {
  apiEnum,
  deviceFingerprints,
  identifier,
  idText,
  LIMITS,
  quantity,
  text,
  timestampString,
} from './fields.ts';

/** POST /v1/return request body (docs/api.md). */
const RETURN_STATUSES = ['REQUESTED', 'APPROVED', 'RECEIVED', 'COMPLETED', 'CANCELLED'] as const;

/** The return's own value sets; dispositions spell theirs differently (as merchants send them). */
const RETURN_METHODS = ['Drop-Off', 'Pickup', 'In-Store'] as const;
const RETURN_REFUND_MODES = ['ORIGINAL_PAYMENT', 'STORE_CREDIT', 'EXCHANGE'] as const;

const returnedLineItemSchema = z.strictObject({
  lineItem: z.strictObject({ identifiers: z.array(identifier()).min(1).max(LIMITS.identifiers) }),
  category: text().optional(),
  quantity: quantity(),
  reason: text(),
});

export const returnRequestSchema = z.strictObject({
  providerOrderId: idText(),
  providerReturnId: idText(),
  status: apiEnum(RETURN_STATUSES),
  reason: text(),
  returnMethod: z.strictObject({ returnMethod: apiEnum(RETURN_METHODS) }),
  refundMode: z.strictObject({ refundMode: apiEnum(RETURN_REFUND_MODES) }),
  returnedLineItems: z.array(returnedLineItemSchema).min(1).max(LIMITS.returnedItems),
  deviceFingerprints: deviceFingerprints().optional(),
  timestamp: timestampString(),
});

export type ReturnRequest = z.infer<typeof returnRequestSchema>;
export type ReturnedLineItem = z.infer<typeof returnedLineItemSchema>;
