import * as z from 'zod';
import { apiEnum, deviceFingerprints, idText, phoneNumber, text, timestampString } from './fields.ts';

/** POST /v1/evaluate/login request body (docs/api.md). */
const LOGIN_STATUSES = ['$success', '$failure'] as const;
const AUTH_METHOD_TYPES = ['password', 'sso', 'magic_link', 'passkey', 'oauth'] as const;
const MFA_METHODS = ['app_authenticator', 'sms', 'email', 'hardware_key'] as const;

export const loginRequestSchema = z.strictObject({
  providerCustomerId: idText(),
  loginStatus: apiEnum(LOGIN_STATUSES),
  // What the user typed, not a verified address: refusing a mistyped one would lose the failed attempt.
  email: text(),
  username: text(),
  siteDomain: text(),
  verificationPhoneNumber: phoneNumber().optional(),
  authMethod: z.strictObject({
    type: apiEnum(AUTH_METHOD_TYPES),
    mfaUsed: z.boolean().optional(),
    mfaMethod: apiEnum(MFA_METHODS).optional(),
    // The contract lists fingerprints inside authMethod; the top level (as on every other event) works too.
    deviceFingerprints: deviceFingerprints().optional(),
  }),
  deviceFingerprints: deviceFingerprints().optional(),
  /** When the attempt happened (epoch ms as a string); the time of receipt when absent. */
  timestamp: timestampString().optional(),
});

export type LoginRequest = z.infer<typeof loginRequestSchema>;
