import * as z from 'zod';
import { contactInformation, deviceFingerprints, idText, text, timestampString } from './fields.ts';

/** POST /v1/evaluate/signup request body (docs/api.md). */
export const signupRequestSchema = z.strictObject({
  customerId: idText(),
  firstName: text(),
  lastName: text(),
  username: text().min(1),
  website: text().optional(),
  referralCodeApplied: text().optional(),
  referrerID: idText().optional(),
  referralID: idText().optional(),
  contactInformation: contactInformation().refine(
    (contacts) => contacts.some((c) => c.contactType === 'EMail'),
    {
      error: 'must include at least one EMail contact',
    },
  ),
  deviceFingerprints: deviceFingerprints().optional(),
  /** When the account was created (epoch ms as a string); the time of receipt when absent. */
  timestamp: timestampString().optional(),
});

export type SignupRequest = z.infer<typeof signupRequestSchema>;
