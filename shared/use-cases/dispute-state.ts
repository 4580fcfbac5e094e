import { isFraudReason } from '../lists/feedback-rules.ts';
import { canonicalJson } from '../store/canonical.ts';
import type { DisputeEffects, DisputeEvent, StoredDispute } from '../store/disputes.ts';

/**
 * The dispute state rules of docs/decisions.md, as pure functions: any status may come first (back-fill),
 * the event with the latest timestamp is the state, an older event is kept in the history without
 * changing the state, and an event already received changes nothing.
 */

/** Events kept per dispute; the oldest go first. A back-fill of one call (100) always fits. */
const MAX_DISPUTE_HISTORY = 200;
/**
 * Bytes of history kept per dispute (as JSON, a little more than DynamoDB counts): 200 events with
 * 1,024-character reasons would pass DynamoDB's 400 KB item limit and fail the write. 100 events
 * of the largest size still fit, so one call's back-fill is always kept whole.
 */
const MAX_DISPUTE_HISTORY_BYTES = 300_000;

/** The dispute after some events, or undefined when every event was already recorded. */
export function applyDisputeEvents(
  stored: StoredDispute | undefined,
  events: readonly DisputeEvent[],
  fresh: Omit<StoredDispute, 'current' | 'history' | 'applied' | 'version' | 'updatedAt'>,
  orderIdentities: readonly string[],
  now: number,
): StoredDispute | undefined {
  const known = new Set((stored?.history ?? []).map((event) => canonicalJson(event)));
  const history = [...(stored?.history ?? [])];
  let current = stored?.current;
  // Oldest first, so within one call the latest event ends as the state; ties keep arrival order.
  const ordered = [...events].sort((a, b) => a.timestamp - b.timestamp);
  for (const event of ordered) {
    const id = canonicalJson(event);
    if (known.has(id)) continue;
    known.add(id);
    history.push(event);
    if (!current || event.timestamp >= current.timestamp) current = event;
  }
  if (!current || history.length === (stored?.history.length ?? 0)) return undefined;
  history.sort((a, b) => a.timestamp - b.timestamp);
  return {
    ...(stored ?? fresh),
    current,
    history: newestThatFit(history),
    applied: effectsOf(current, stored?.applied, orderIdentities),
    version: (stored?.version ?? 0) + 1,
    updatedAt: new Date(now).toISOString(),
  };
}

/** The newest events (history is oldest first) within both the count and the byte bound. */
function newestThatFit(history: readonly DisputeEvent[]): DisputeEvent[] {
  const kept = history.slice(-MAX_DISPUTE_HISTORY);
  let bytes = 0;
  for (let i = kept.length - 1; i >= 0; i--) {
    bytes += Buffer.byteLength(JSON.stringify(kept[i]));
    if (bytes > MAX_DISPUTE_HISTORY_BYTES) return kept.slice(i + 1);
  }
  return kept;
}

/**
 * What a dispute in this state adds to counters: LOST a lost chargeback of its amount (and, for a
 * reason that is not fraud, a lost service dispute), OPEN and RESPONDED an open dispute. An effect that carries on keeps its original time and identities.
 */
export function effectsOf(
  current: DisputeEvent,
  before: DisputeEffects | undefined,
  orderIdentities: readonly string[],
): DisputeEffects {
  const effects: DisputeEffects = { identities: before?.identities ?? [...orderIdentities] };
  if (current.disputeStatus === 'LOST') {
    const service = !isFraudReason(current.disputeReason);
    effects.lost =
      before?.lost && before.lost.value === current.disputeAmount && Boolean(before.lost.service) === service
        ? before.lost
        : { value: current.disputeAmount, at: current.timestamp, ...(service ? { service: true } : {}) };
  }
  if (current.disputeStatus === 'OPEN' || current.disputeStatus === 'RESPONDED') {
    effects.open = before?.open ?? { at: current.timestamp };
  }
  return effects;
}

/** Whether an effect (a lost chargeback, an open dispute) is unchanged, value and time. */
export const sameEffect = (a: object | undefined, b: object | undefined) =>
  (a === undefined && b === undefined) ||
  (a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b));
