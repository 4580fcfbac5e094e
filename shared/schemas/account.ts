import * as z from 'zod';
import { apiEnum, deviceFingerprints, idText, text, timestampString } from './fields.ts';

/** POST /v1/evaluate/account request body (docs/api.md). */
const CHANGE_TYPES = [
  'PASSWORD_CHANGE',
  'EMAIL_CHANGE',
  'PHONE_CHANGE',
  'PAYMENT_METHOD_ADD',
  'PAYMENT_METHOD_REMOVE',
  'PAYOUT_ADD',
  'PAYOUT_CHANGE',
  'MFA_DISABLE',
  'MFA_METHOD_CHANGE',
  'ADDRESS_ADD',
  'LOYALTY_REDEMPTION',
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** Changes an account takeover goes for first: where money goes out, and how the owner gets back in. */
export const RISKY_CHANGE_TYPES: ReadonlySet<ChangeType> = new Set([
  'PAYOUT_ADD',
  'PAYOUT_CHANGE',
  'MFA_DISABLE',
  'EMAIL_CHANGE',
  'PHONE_CHANGE',
]);

const HEX_DIGEST = /^[0-9a-fA-F]{64,}$/;
// Standard or URL-safe alphabet, optional padding; at least 43 symbols carry at least 32 bytes.
const BASE64_DIGEST = /^(?:[A-Za-z0-9+/]{43,}={0,2}|[A-Za-z0-9_-]{43,}={0,2})$/;

/**
 * Whether a credential value is safe to receive: the word `redacted` or something shaped like a
 * digest of at least 32 bytes (hex or base64). Anything else may be a literal password.
 */
export function isRedactedOrHashed(value: string): boolean {
  return value === 'redacted' || HEX_DIGEST.test(value) || BASE64_DIGEST.test(value);
}

const CREDENTIAL_FIELDS = ['previousValue', 'newValue'] as const;

export const accountRequestSchema = z
  .strictObject({
    providerCustomerId: idText(),
    changeType: apiEnum(CHANGE_TYPES),
    previousValue: text().optional(),
    newValue: text().optional(),
    siteDomain: text(),
    deviceFingerprints: deviceFingerprints().optional(),
    timestamp: timestampString(),
  })
  .superRefine((body, ctx) => {
    if (body.changeType !== 'PASSWORD_CHANGE') return;
    for (const field of CREDENTIAL_FIELDS) {
      const value = body[field];
      // A value of the wrong type is already an issue of its own (400).
      if (typeof value !== 'string' || isRedactedOrHashed(value)) continue;
      // The message names the rule, never the value; the refused body is not stored or logged.
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: 'must be "redacted" or a hash (hex or base64 of at least 32 bytes) for PASSWORD_CHANGE',
      });
    }
  });

export type AccountRequest = z.infer<typeof accountRequestSchema>;
