import type { Decision } from '../scoring/decide.ts';
import type { EventType } from '../scoring/workflow.ts';
import { type DecidedEventRecord, decidedEventPut } from './decided-events.ts';
import type { HistoryChanges } from './identity-history.ts';
import { keys, type TableKey } from './keys.ts';
import { type RecordOutcome, recordOnce } from './record-once.ts';
import { reviewItemsFor } from './reviews.ts';
import { TTL_ATTRIBUTE } from './table-definition.ts';
import { type TransactItems, transactWrite } from './transact.ts';
import { eventWebhookItems } from './webhook-notices.ts';

/**
 * Signups, logins and account updates: each event's record and every counter it moves are written in
 * one transaction. Records hold identity digests and flags, never raw contact data or credentials.
 */
interface EvaluatedEvent extends DecidedEventRecord {
  /** Every identity of the event as `kind#digest`. */
  identities: string[];
  decision: Decision;
  /** The response exactly as first sent. */
  responseJson: string;
}

export interface StoredSignup extends EvaluatedEvent {
  customerId: string;
  serviceSignupId: string;
  requestHash: string;
  referrerId?: string;
}

export interface StoredLogin extends EvaluatedEvent {
  providerCustomerId: string;
  serviceLoginId: string;
  loginStatus: string;
  authType: string;
  mfaUsed: boolean;
}

export interface StoredAccountEvent extends EvaluatedEvent {
  providerCustomerId: string;
  serviceAccountEventId: string;
  changeType: string;
  timestamp: number;
  /** Whether a value was sent; for non-credential changes also a digest, never the value itself. */
  previousValue: { given: boolean; digest?: string };
  newValue: { given: boolean; digest?: string };
}

/** Logins and account updates are kept as long as the longest counter window (365 d) plus a margin. */
const EVENT_RETENTION_SECONDS = 400 * 86_400;

/**
 * Records a signup unless its customerId is taken. A concurrent duplicate loses the condition, writes
 * nothing, and gets the winner's record back.
 */
export function recordSignup(
  signup: StoredSignup,
  changes: HistoryChanges,
  storedItems: Map<string, Record<string, unknown>>,
  now: number,
): Promise<RecordOutcome<StoredSignup>> {
  const key = keys.signup(signup.merchantId, signup.customerId);
  return recordOnce<StoredSignup>(
    eventWithHistory(
      { eventType: 'signup', key, eventId: signup.customerId },
      signup,
      changes,
      storedItems,
      now,
    ),
    key,
  );
}

/** `alsoWrite`: further items of the same transaction (the Idempotency-Key record). */
export async function recordLogin(
  login: StoredLogin,
  changes: HistoryChanges,
  storedItems: Map<string, Record<string, unknown>>,
  now: number,
  alsoWrite: TransactItems = [],
): Promise<void> {
  await transactWrite(
    eventWithHistory(
      {
        eventType: 'login',
        key: keys.login(login.merchantId, login.serviceLoginId),
        eventId: login.serviceLoginId,
        retainUntil: retention(now),
      },
      login,
      changes,
      storedItems,
      now,
      alsoWrite,
    ),
  );
}

/** `alsoWrite`: further items of the same transaction (the Idempotency-Key record). */
export async function recordAccountEvent(
  event: StoredAccountEvent,
  changes: HistoryChanges,
  storedItems: Map<string, Record<string, unknown>>,
  now: number,
  alsoWrite: TransactItems = [],
): Promise<void> {
  await transactWrite(
    eventWithHistory(
      {
        eventType: 'account',
        key: keys.accountEvent(event.merchantId, event.serviceAccountEventId),
        eventId: event.serviceAccountEventId,
        retainUntil: retention(now),
      },
      event,
      changes,
      storedItems,
      now,
      alsoWrite,
    ),
  );
}

const retention = (now: number) => Math.floor(now / 1000) + EVENT_RETENTION_SECONDS;

/**
 * One transaction: the record first (index 0, so a failed condition points at it, findable by type
 * and time for backtests), one update per identity, a review item when the decision is REVIEW, and
 * the outbox items of the merchant's webhooks.
 */
function eventWithHistory(
  target: { eventType: EventType; key: TableKey; eventId: string; retainUntil?: number },
  record: EvaluatedEvent,
  changes: HistoryChanges,
  storedItems: Map<string, Record<string, unknown>>,
  now: number,
  alsoWrite: TransactItems = [],
): TransactItems {
  const { eventType, key, retainUntil } = target;
  return [
    decidedEventPut(target, record, retainUntil !== undefined ? { [TTL_ATTRIBUTE]: retainUntil } : {}),
    ...changes.toTransactItems(record.merchantId, storedItems, now),
    ...reviewItemsFor(record.merchantId, eventType, key, record.decision, record.identities, now),
    ...eventWebhookItems(
      { ...record, eventType, eventKey: key, decisions: record.decision },
      storedItems,
      now,
    ),
    ...alsoWrite,
  ];
}
