import { randomUUID } from 'node:crypto';
import {
  ENDPOINT_DEFINITIONS,
  type EndpointName,
  type EventType,
  type NaturalKeyPolicy,
  type RequestOf,
  type ResponseOf,
} from '../contract/endpoints.ts';
import type { IdentityRef } from '../identity/identities.ts';
import { networkKeyOf } from '../network/network-key.ts';
import { readNetworkSecret } from '../network/network-secret.ts';
import { recordDecisionMetric } from '../observability-decisions.ts';
import { receivedAt } from '../request-scope.ts';
import type { Decision } from '../scoring/decide.ts';
import { isNetworkKind } from '../scoring/network-reputation.ts';
import { ALLOWED_OUTCOMES } from '../scoring/workflow.ts';
import { type DecidedEventWrite, recordDecidedEvent } from '../store/decided-events.ts';
import { utcDay } from '../store/decision-settings.ts';
import { reviewCounterKey, type TableKey } from '../store/keys.ts';
import { ConditionFailedError, type TransactItems } from '../store/transact.ts';
import { type DecisionContext, loadDecisionContext } from './decision-context.ts';
import { decidedEventOutbox } from './decision-notices.ts';
import { eventTime } from './event-time.ts';
import { answeredOncePerKey, type IdempotencyClaim } from './idempotency-key.ts';
import {
  type BodyFingerprint,
  bodyFingerprint,
  classifyRepeat,
  repeatConflict,
} from './natural-key-repeats.ts';
import { type Answer, type EndpointCall, type EndpointUseCase, fresh } from './use-case.ts';

/**
 * The one path of every scored event (orders, returns, signups, logins, account updates):
 *   1. read: one BatchGetItem of the merchant's workflow and model, the history of the event's
 *      identities and its own records (decision-context.ts);
 *   2. repeat: a call already answered is answered again as the first time, by the policy the
 *      endpoint registry declares (a body field, or the Idempotency-Key header);
 *   3. score and decide: the event type's signals, the live model, the merchant's workflow;
 *   4. record: the event's record, every counter it moves, its review and webhook outbox items and
 *      the Idempotency-Key record in one transaction (store/decided-events.ts);
 *   5. answer: the response the event type builds from its record, once.
 * Each event type supplies only what differs: what it reads, how it scores, what it records.
 */
export type ScoredEndpoint = {
  [N in EndpointName]: (typeof ENDPOINT_DEFINITIONS)[N] extends { eventType: string } ? N : never;
}[EndpointName];

/** The scored endpoints whose events are named by a body field (orders, returns, signups). */
type NaturalKeyEndpoint = {
  [N in ScoredEndpoint]: (typeof ENDPOINT_DEFINITIONS)[N]['idempotency'] extends { kind: 'natural-key' }
    ? N
    : never;
}[ScoredEndpoint];

/** What an event reads besides the merchant's workflow, model and webhook subscriptions. */
export interface EventReads {
  identities: readonly IdentityRef[];
  /** The event's own records (a return reads its order); a natural key's record is added by the pipeline. */
  records?: readonly TableKey[];
  /** Identities known only from those records, read in a second BatchGetItem. */
  identitiesFromRecords?: (item: <T>(key: TableKey) => T | undefined) => readonly IdentityRef[];
}

/** What evaluating an event needs: the call, what the event type planned to read, and what was read. */
export interface Evaluation<N extends ScoredEndpoint, TPlan> {
  call: EndpointCall<RequestOf<N>>;
  plan: TPlan;
  context: DecisionContext;
  /** The event's own time (history is read and written as of it) and when it was received. */
  at: number;
  now: number;
  /** Natural-key events: the body's hashes, kept on the record to recognise a repeat. */
  fingerprint: N extends NaturalKeyEndpoint ? BodyFingerprint : undefined;
}

/** What an evaluated event writes and answers. */
interface ScoredEvent<N extends ScoredEndpoint> {
  write: Omit<DecidedEventWrite, 'alsoWrite'> & { alsoWrite?: TransactItems };
  /** The answer, built once from the record. */
  response: ResponseOf<N>;
}

/** A recorded event's record, as read back under its natural key. */
type StoredEventItem = BodyFingerprint & Record<string, unknown>;

export interface ScoredEventType<N extends ScoredEndpoint, TPlan extends EventReads> {
  /** Whether a network member's events of this type read the network (their signals use it). */
  readsNetwork?: boolean;
  /** What the event reads, from its body (identities by role, its own records). */
  plan: (call: EndpointCall<RequestOf<N>>) => TPlan;
  /** Refusals that need the records read (a return of an unknown order), before repeats are answered. */
  check?: (evaluation: Omit<Evaluation<N, NoInfer<TPlan>>, 'fingerprint'>) => void;
  /** Scores and decides the event, and builds its record and answer. */
  evaluate: (evaluation: Evaluation<N, NoInfer<TPlan>>) => ScoredEvent<N>;
  /** Natural-key events: where the record lives, and how a repeat of it is answered. */
  recorded?: {
    key: (merchantId: string, body: RequestOf<N>) => TableKey;
    /** The answer first given, from the stored record. */
    answer: (stored: StoredEventItem) => ResponseOf<N>;
    /** Records a status change sent under the same key (the decision stays the first one). */
    statusUpdate?: (stored: StoredEventItem, body: RequestOf<N>) => Promise<void>;
  };
}

export function scoredEventUseCase<N extends ScoredEndpoint, TPlan extends EventReads>(
  endpoint: N,
  type: ScoredEventType<N, TPlan>,
): EndpointUseCase<N> {
  const definition = ENDPOINT_DEFINITIONS[endpoint];
  const eventType: EventType = definition.eventType;
  const policy = definition.idempotency;
  if (policy.kind === 'natural-key') {
    const recorded = type.recorded;
    if (!recorded) throw new Error(`${endpoint}: a natural-key event type must say where it is recorded`);
    return (call) => scoreEvent(eventType, type, call, { policy, recorded }, undefined);
  }
  return answeredOncePerKey((call, claim) => scoreEvent(eventType, type, call, undefined, claim));
}

type NaturalKey<N extends ScoredEndpoint, TPlan extends EventReads> = {
  policy: NaturalKeyPolicy;
  recorded: NonNullable<ScoredEventType<N, TPlan>['recorded']>;
};

async function scoreEvent<N extends ScoredEndpoint, TPlan extends EventReads>(
  eventType: EventType,
  type: ScoredEventType<N, TPlan>,
  call: EndpointCall<RequestOf<N>>,
  naturalKey: NaturalKey<N, TPlan> | undefined,
  claim: IdempotencyClaim<ResponseOf<N>> | undefined,
): Promise<Answer<ResponseOf<N>>> {
  const { body, merchantId } = call;
  const now = receivedAt();
  const at = eventTime((body as { timestamp?: string }).timestamp, now);
  const plan = type.plan(call);
  const recordKey = naturalKey?.recorded.key(merchantId, body);
  // The review-counter shard follows the event's id: its natural key, or (logins and account
  // updates, named by a generated id) a random one. Orders never review, so never read it.
  const reviewCounter = ALLOWED_OUTCOMES[eventType].includes('REVIEW')
    ? reviewCounterKey(merchantId, eventType, utcDay(now), recordKey?.PK ?? randomUUID())
    : undefined;
  const context = await loadDecisionContext({
    merchantId,
    eventType,
    identities: plan.identities,
    records: [...(recordKey ? [recordKey] : []), ...(claim ? [claim.key] : []), ...(plan.records ?? [])],
    at,
    notify: call.notify,
    identitiesFromRecords: plan.identitiesFromRecords,
    reviewCounter,
    network: call.network === true && type.readsNetwork === true,
  });
  type.check?.({ call, plan, context, at, now });

  const fingerprint = (naturalKey ? bodyFingerprint(naturalKey.policy, body) : undefined) as Evaluation<
    N,
    TPlan
  >['fingerprint'];
  const earlier = recordKey && context.item<StoredEventItem>(recordKey);
  if (naturalKey && earlier && fingerprint) return answerRepeat(naturalKey, earlier, body, fingerprint);
  const prior = claim?.priorAnswer(context.items, now);
  if (prior) return prior;

  const { write, response } = type.evaluate({ call, plan, context, at, now, fingerprint });
  // A member's first sighting of a shared identity is queued for the network worker, on the
  // identity's own item: nothing is added to a non-member's writes.
  if (call.network === true) {
    const secret = await readNetworkSecret();
    write.changes.queueNetworkSightings(merchantId, at, (ref) =>
      isNetworkKind(ref.kind) ? networkKeyOf(secret, ref) : undefined,
    );
  }
  const alsoWrite = [
    ...(write.alsoWrite ?? []),
    ...decidedEventOutbox(
      { merchantId, eventType, eventKey: write.target.key, response, decisions: write.decisions },
      context.subscriptions,
      now,
    ),
    ...(claim ? [claim.recordPut(response, now)] : []),
  ];
  const outcome = await recordDecidedEvent(
    { ...write, alsoWrite, reviewCounter: context.reviewCounter },
    context.items,
    now,
  );
  if (!outcome.recorded) {
    // A concurrent call with the same natural key recorded first: answered as that one was.
    if (naturalKey && fingerprint)
      return answerRepeat(naturalKey, outcome.existing as StoredEventItem, body, fingerprint);
    // An event named by a generated id found it taken: only an imported line run again draws the
    // same id (history-import/run-import.ts counts it as already present).
    throw new ConditionFailedError(0, outcome.existing, write.target.key);
  }
  for (const decision of decisionsOf(write.decisions)) recordDecisionMetric(eventType, decision.decision);
  return fresh(response);
}

async function answerRepeat<N extends ScoredEndpoint, TPlan extends EventReads>(
  { policy, recorded }: NaturalKey<N, TPlan>,
  stored: StoredEventItem,
  body: RequestOf<N>,
  fingerprint: BodyFingerprint,
): Promise<Answer<ResponseOf<N>>> {
  switch (classifyRepeat(stored, fingerprint)) {
    case 'replay':
      return { response: recorded.answer(stored), replayed: true };
    case 'status_update':
      await recorded.statusUpdate?.(stored, body);
      return fresh(recorded.answer(stored));
    case 'conflict':
      throw repeatConflict(policy);
  }
}

const decisionsOf = (decisions: DecidedEventWrite['decisions']): readonly Decision[] =>
  Array.isArray(decisions) ? decisions.map((part) => part.decision) : [decisions as Decision];
