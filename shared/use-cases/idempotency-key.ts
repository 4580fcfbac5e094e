import { IDEMPOTENCY_KEY_HEADER } from '../contract/endpoints.ts';
import { ApiError } from '../errors.ts';
import { receivedAt } from '../request-scope.ts';
import { keyString } from '../store/batch-get.ts';
import { canonicalJson, sha256Hex } from '../store/canonical.ts';
import {
  getIdempotencyRecord,
  idempotencyRecordPut,
  liveIdempotencyRecord,
  saveIdempotencyRecord,
} from '../store/idempotency-records.ts';
import { keys, type TableKey } from '../store/keys.ts';
import { ConditionFailedError, type TransactItem } from '../store/transact.ts';
import { type Answer, type EndpointCall, storedAnswer, type UseCase } from './use-case.ts';

/**
 * The optional Idempotency-Key of the endpoints whose registry policy is `idempotency-key-header`
 * (login, account update, disposition, dispute; docs/decisions.md, Idempotency): one mechanism,
 * applied by `answeredOncePerKey`. The use case it wraps gets the call's claim and
 *   1. adds `claim.key` to its first read and answers `claim.priorAnswer(items)` when there is one
 *      (the original response with `Idempotent-Replayed: true`, or 409 `idempotency_key_reused`
 *      for a different request under the same key);
 *   2. adds `claim.recordPut(response)` to its one transaction (or `claim.recordAlone` when it has
 *      nothing else to write), so the record exists exactly when the request's effects do.
 * The wrapper answers the loser of a race between two requests with one key as the winner was.
 * No extra round trip: the record rides in the read and the transaction the request makes anyway.
 */
export class IdempotencyClaim<TResponse> {
  readonly key: TableKey;
  private readonly endpoint: string;
  private readonly requestHash: string;

  private constructor(request: EndpointCall<unknown>, idempotencyKey: string) {
    this.endpoint = request.endpoint;
    this.key = keys.idempotencyKey(request.merchantId, request.endpoint, idempotencyKey);
    // Canonical: key order and whitespace do not matter; the path is part of the request.
    this.requestHash = sha256Hex(canonicalJson({ body: request.body, path: request.pathParameters }));
  }

  /** The claim of a request that carries an Idempotency-Key; undefined when it carries none. */
  static of<TResponse>(request: EndpointCall<unknown>): IdempotencyClaim<TResponse> | undefined {
    return request.idempotencyKey === undefined
      ? undefined
      : new IdempotencyClaim<TResponse>(request, request.idempotencyKey);
  }

  /** The answer already given under this key, from the items the request's first read returned. */
  priorAnswer(
    read: ReadonlyMap<string, Record<string, unknown>>,
    now: number,
  ): Answer<TResponse> | undefined {
    return this.answerFromRecord(read.get(keyString(this.key)), now);
  }

  /** The replay of a live record for the same request; 409 for another request; else undefined. */
  answerFromRecord(item: Record<string, unknown> | undefined, now: number): Answer<TResponse> | undefined {
    const record = liveIdempotencyRecord(item, now);
    if (!record) return undefined;
    if (record.requestHash !== this.requestHash) {
      throw new ApiError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request in the last 24 hours.',
        { field: IDEMPOTENCY_KEY_HEADER },
      );
    }
    return storedAnswer<TResponse>(record, true);
  }

  /** The Put recording `response` under this key, for the request's one transaction. */
  recordPut(response: TResponse, now: number): TransactItem {
    return idempotencyRecordPut(
      this.key,
      {
        endpoint: this.endpoint,
        requestHash: this.requestHash,
        responseJson: JSON.stringify(response),
        createdAt: new Date(now).toISOString(),
      },
      now,
    );
  }

  /** For a request with nothing else to write: the key still binds to this request. */
  recordAlone(response: TResponse, now: number): Promise<void> {
    return saveIdempotencyRecord(this.recordPut(response, now));
  }

  /** Whether a failed transaction failed on this claim's record (another request recorded first). */
  lostRace(error: unknown): error is ConditionFailedError {
    return (
      error instanceof ConditionFailedError && error.key?.PK === this.key.PK && error.key?.SK === this.key.SK
    );
  }
}

/** A use case of an Idempotency-Key endpoint: given the call's claim, when the call carries a key. */
export type ClaimingUseCase<TBody, TResponse> = (
  call: EndpointCall<TBody>,
  claim: IdempotencyClaim<TResponse> | undefined,
) => Promise<Answer<TResponse>>;

/**
 * The use case with the call's Idempotency-Key applied. When a concurrent request with the same key
 * recorded first, this request's transaction was cancelled whole (nothing of it written), and it
 * answers as that one was: the same response replayed, or 409 if it was a different request.
 */
export function answeredOncePerKey<TBody, TResponse>(
  run: ClaimingUseCase<TBody, TResponse>,
): UseCase<TBody, TResponse> {
  return async (call) => {
    const claim = IdempotencyClaim.of<TResponse>(call);
    try {
      return await run(call, claim);
    } catch (error) {
      if (!claim?.lostRace(error)) throw error;
      const now = receivedAt();
      const record = error.existingItem ?? (await getIdempotencyRecord(claim.key));
      const answer = claim.answerFromRecord(record, now);
      if (!answer) throw error;
      return answer;
    }
  };
}
