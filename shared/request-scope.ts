import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What code far below the handler needs to know about the request it serves, carried by
 * AsyncLocalStorage so store functions keep their signatures: the time budget for store retries,
 * and the write gate every write of the request waits for (the rate limiter's admission).
 */
export interface RequestScope {
  /** Epoch ms after which no store call is retried: the request answers 503 instead. */
  deadline: number;
  gate?: WriteGate;
  /** Set when the request replays a historical event (admin import) rather than a live call. */
  imported?: ImportedEvent;
}

/**
 * A historical event run through the live use cases: it is received "at its own time", so records
 * and history come out as if it had arrived then; its service ids derive from `idSeed`, so running
 * it again writes the same items (import is idempotent and resumable); it opens no review item.
 */
export interface ImportedEvent {
  receivedAt: number;
  idSeed: string;
  /** How many ids the event has drawn so far (a return draws one per line). */
  idsDrawn: number;
}

/**
 * A check that must pass before the request writes anything. It is started by the request's first
 * DynamoDB call (so the two travel together) or, for a request that never calls DynamoDB, when the
 * request ends; shared/store/client.ts holds every write until `ready()` resolves.
 */
export interface WriteGate {
  /** Starts the check unless it has started; idempotent. */
  start: () => void;
  /** Resolves once the request may write; rejects with the refusal or the check's own failure. */
  ready: () => Promise<void>;
}

/**
 * A write held back because the gate's check itself failed: distinct from the store's own
 * failures, so no store retry loop waits out a verdict that is already final.
 */
export class WriteGateClosedError extends Error {
  constructor(cause: unknown) {
    super('The request may not write: its admission check failed', { cause });
    this.name = 'WriteGateClosedError';
  }
}

const storage = new AsyncLocalStorage<RequestScope>();

export function runInRequestScope<T>(scope: RequestScope, run: () => T): T {
  return storage.run(scope, run);
}

export function currentRequestScope(): RequestScope | undefined {
  return storage.getStore();
}

/** Runs `run` with every DynamoDB write it makes held until `gate` is ready (store/client.ts). */
export function runBehindWriteGate<T>(gate: WriteGate, run: () => T): T {
  return storage.run({ ...storage.getStore(), deadline: requestDeadline(), gate }, run);
}

/** Runs `run` outside the request: its DynamoDB calls pass no gate (the gate's own check). */
export function outsideRequestScope<T>(run: () => T): T {
  return storage.exit(run);
}

/** Outside a request (admin CLI, scripts) retries are bounded by their attempt count alone. */
export function requestDeadline(): number {
  return storage.getStore()?.deadline ?? Number.POSITIVE_INFINITY;
}

/** When the service received the request: the clock, or an imported event's original time. */
export function receivedAt(): number {
  return storage.getStore()?.imported?.receivedAt ?? Date.now();
}

/** The imported event the current request replays, if it replays one. */
export function importedEvent(): ImportedEvent | undefined {
  return storage.getStore()?.imported;
}
