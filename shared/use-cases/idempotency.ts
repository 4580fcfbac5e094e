import type { UseCaseResult } from '../http/responses.ts';
import { requestFingerprint } from '../store/canonical.ts';

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

export const REPLAYED_HEADER = { 'Idempotent-Replayed': 'true' } as const;

/** The hashes a recorded event keeps for classifyRepeat: its whole body, and the body minus status fields. */
export function eventFingerprint(
  body: Record<string, unknown>,
  statusFields: readonly string[],
): { requestHash: string; stableHash: string } {
  return { requestHash: requestFingerprint(body), stableHash: requestFingerprint(body, statusFields) };
}

/** The original response exactly as first sent, flagged as a replay. */
export function replayOf(stored: { responseJson: string }): UseCaseResult {
  return { rawBody: stored.responseJson, headers: REPLAYED_HEADER };
}

/**
 * The answer of a request keyed per entry (dispositions, disputes): when every entry was already
 * recorded exactly as sent, nothing was written and this is the original answer, replayed.
 */
export function entriesAnswer(body: unknown, nothingNew: boolean): UseCaseResult {
  return nothingNew ? { body, headers: REPLAYED_HEADER } : { body };
}
