import { requestFingerprints } from '../store/canonical.ts';
import { type Answer, storedAnswer } from './use-case.ts';

/**
 * How a request relates to an already-recorded one with the same idempotency key (decisions.md):
 * the same body is a replay, a body differing only in status fields is a status update, anything
 * else is a conflict.
 */
export type Repeat = 'replay' | 'status_update' | 'conflict';

export function classifyRepeat(
  stored: { requestHash: string; stableHash: string },
  incoming: { requestHash: string; stableHash: string },
): Repeat {
  if (stored.requestHash === incoming.requestHash) return 'replay';
  if (stored.stableHash === incoming.stableHash) return 'status_update';
  return 'conflict';
}

/** The hashes a recorded event keeps for classifyRepeat: its whole body, and the body minus status fields. */
export function eventFingerprint(
  body: Record<string, unknown>,
  statusFields: readonly string[],
): { requestHash: string; stableHash: string } {
  return requestFingerprints(body, statusFields);
}

/** The original response exactly as first sent, flagged as a replay. */
export function replayOf<T>(stored: { responseJson: string }): Answer<T> {
  return storedAnswer<T>(stored, true);
}
