import type { Decision } from '../scoring/decide.ts';
import type { DecidedEventRecord } from './decided-events.ts';

/**
 * Signups, logins and account updates as recorded (store/decided-events.ts writes them). Records hold
 * identity digests and flags, never raw contact data or credentials.
 */
interface AccountEventRecordBase extends DecidedEventRecord {
  /** Every identity of the event as `kind#digest`. */
  identities: string[];
  decision: Decision;
  /** The response exactly as first sent. */
  responseJson: string;
}

export interface SignupRecord extends AccountEventRecordBase {
  customerId: string;
  serviceSignupId: string;
  /** Hash of the request (natural-key-repeats.ts): signups have no status fields. */
  requestHash: string;
  referrerId?: string;
}

export interface LoginRecord extends AccountEventRecordBase {
  providerCustomerId: string;
  serviceLoginId: string;
  loginStatus: string;
  authType: string;
  mfaUsed: boolean;
}

export interface AccountUpdateRecord extends AccountEventRecordBase {
  providerCustomerId: string;
  serviceAccountEventId: string;
  changeType: string;
  timestamp: number;
  /** Whether a value was sent; for non-credential changes also a digest, never the value itself. */
  previousValue: { given: boolean; digest?: string };
  newValue: { given: boolean; digest?: string };
}
