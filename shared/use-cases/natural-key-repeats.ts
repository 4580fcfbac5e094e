import type { NaturalKeyPolicy } from '../contract/endpoints.ts';
import { ApiError } from '../errors.ts';
import { requestFingerprints } from '../store/canonical.ts';

/**
 * Events named by a field of their body (an order's `providerOrderId`, a return's
 * `providerReturnId`, a signup's `customerId`): how a call relates to the event already recorded
 * under the same key (docs/decisions.md, Idempotency). The endpoint registry declares the field,
 * the status fields and the conflict (shared/contract/endpoints.ts); this module applies them.
 */
export type Repeat = 'replay' | 'status_update' | 'conflict';

/** The hashes a recorded event keeps to recognise a repeat: its whole body, and its body minus status fields. */
export interface BodyFingerprint {
  requestHash: string;
  /** Absent on events without status fields (signups): the whole-body hash then stands for both. */
  stableHash?: string;
}

export function bodyFingerprint(policy: NaturalKeyPolicy, body: Record<string, unknown>): BodyFingerprint {
  const { requestHash, stableHash } = requestFingerprints(body, policy.statusFields);
  return policy.statusFields.length > 0 ? { requestHash, stableHash } : { requestHash };
}

/** The same body is a replay, a body differing only in status fields a status update, else a conflict. */
export function classifyRepeat(stored: BodyFingerprint, incoming: BodyFingerprint): Repeat {
  if (stored.requestHash === incoming.requestHash) return 'replay';
  const stable = (f: BodyFingerprint) => f.stableHash ?? f.requestHash;
  return stable(stored) === stable(incoming) ? 'status_update' : 'conflict';
}

/** The 409 a different body under a recorded event's key gets. */
export const repeatConflict = (policy: NaturalKeyPolicy) =>
  new ApiError(policy.conflict.code, policy.conflict.message, { field: policy.field });
