import * as z from 'zod';
import { apiEnum, idText, LIMITS, text, timestampNumber } from './fields.ts';

/** POST /v1/order/dispute/{order-id} request body (docs/api.md). */
const DISPUTE_TYPES = ['CHARGEBACK', 'INQUIRY', 'ARBITRATION'] as const;
const DISPUTE_STATUSES = ['OPEN', 'RESPONDED', 'WON', 'LOST'] as const;

/** Bounds a dispute amount so a typo cannot poison a customer's chargeback value for a year. */
const MAX_DISPUTE_AMOUNT = 1e12;

const disputeEntrySchema = z.strictObject({
  disputeId: idText(),
  disputeType: apiEnum(DISPUTE_TYPES, 'unknown_enum_value'),
  // An open list of reason codes (INR, IND, UNAUTH, ...): any non-empty text.
  disputeReason: text().min(1),
  disputeSubreason: text().optional(),
  disputeStatus: apiEnum(DISPUTE_STATUSES, 'unknown_enum_value'),
  // Kept to 4 decimals, finer than any currency's minor unit: this drops float noise (0.1 + 0.2) and
  // magnitudes DynamoDB cannot store (below 1e-130 it refuses the write).
  disputeAmount: z
    .number()
    .nonnegative()
    .max(MAX_DISPUTE_AMOUNT)
    .transform((amount) => Math.round(amount * 1e4) / 1e4),
  timestamp: timestampNumber(),
});

export const disputeRequestSchema = z.strictObject({
  dispute: z.array(disputeEntrySchema).min(1).max(LIMITS.disputes),
});

export type DisputeRequest = z.infer<typeof disputeRequestSchema>;
export type DisputeEntry = z.infer<typeof disputeEntrySchema>;
