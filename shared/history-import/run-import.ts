import { ApiError } from '../errors.ts';
import { runInRequestScope } from '../request-scope.ts';
import type { Merchant } from '../store/merchants.ts';
import { ConditionFailedError } from '../store/transact.ts';
import { evaluateAccountUpdate } from '../use-cases/evaluate-account-update.ts';
import { evaluateLogin } from '../use-cases/evaluate-login.ts';
import { evaluateReturn } from '../use-cases/evaluate-return.ts';
import { evaluateSignup } from '../use-cases/evaluate-signup.ts';
import { placeOrder } from '../use-cases/place-order.ts';
import { recordDispositions } from '../use-cases/record-dispositions.ts';
import { recordDisputes } from '../use-cases/record-disputes.ts';
import type { EndpointCall, EndpointUseCase } from '../use-cases/use-case.ts';
import { EVERYTHING, type ImportEvent, type ImportType, type LineProblem } from './import-lines.ts';

/**
 * Runs parsed history through the same use cases as the API, each event at its own time (see
 * request-scope.ts ImportedEvent): history, links and decisions come out as if the events had
 * arrived live, with no review items. Events run concurrently except where they touch the same
 * record or identity: those run in event-time order, so every event reads exactly the history of
 * the events before it that share anything with it, whatever the concurrency.
 *
 * Idempotent and resumable: an event recorded before is answered as a replay by its use case, or
 * writes nothing (dispositions, disputes), or is refused by its record's seeded id (logins, account
 * updates); it counts as already present.
 */
const USE_CASES: { [T in ImportType]: EndpointUseCase<T> } = {
  order: placeOrder,
  return: evaluateReturn,
  disposition: recordDispositions,
  dispute: recordDisputes,
  signup: evaluateSignup,
  login: evaluateLogin,
  account: evaluateAccountUpdate,
};

export interface ImportSummary {
  events: number;
  imported: number;
  alreadyPresent: number;
  rejected: number;
  seconds: number;
}

/** A run that `keepGoing` ended early: what it left, and where the next run may start. */
export interface UnfinishedImport {
  /** Events not started. */
  notStarted: number;
  /** Index of the first event not handled: every event before it was (imported, present or rejected). */
  firstNotDone: number;
}

export interface ImportOptions {
  merchant: Merchant;
  /** Events in flight at most (each waits for earlier events it shares a record or identity with). */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
  /** A line the use case refused (unknown order, conflicting duplicate, ...): it records nothing. */
  onRejected?: (problem: LineProblem) => void;
  /**
   * Asked before each event starts; once it says no, no further event starts and the run ends when
   * those in flight have (a Lambda function nearing its time limit). Without it the run goes to the end.
   */
  keepGoing?: () => boolean;
}

const DEFAULT_CONCURRENCY = 16;

export async function runImport(
  events: readonly ImportEvent[],
  options: ImportOptions,
): Promise<ImportSummary & { unfinished?: UnfinishedImport }> {
  const started = performance.now();
  const counts = { imported: 0, alreadyPresent: 0, rejected: 0 };
  const handled = new Array<boolean>(events.length).fill(false);
  let outOfTime = false;
  const slots = new Slots(options.concurrency ?? DEFAULT_CONCURRENCY);
  const lastByTouch = new Map<string, Promise<void>>();
  let barrier: Promise<void> = Promise.resolve();
  let sinceBarrier: Promise<void>[] = [];
  let done = 0;
  let stopped: unknown;
  const all: Promise<void>[] = [];

  for (const [index, event] of events.entries()) {
    const alone = event.touches.includes(EVERYTHING);
    const before = alone ? sinceBarrier : event.touches.flatMap((t) => lastByTouch.get(t) ?? []);
    const run = Promise.all([barrier, ...before]).then(() =>
      slots.run(async () => {
        // After a store failure nothing more starts: the import stops, and a re-run resumes it.
        if (stopped) throw stopped;
        // Latched: once out of time, no later event starts either (their order would break).
        if (outOfTime || (options.keepGoing && !options.keepGoing())) {
          outOfTime = true;
          return;
        }
        const outcome = await importOne(event, options.merchant).catch((error: unknown) => {
          stopped ??= error;
          throw error;
        });
        if (outcome === 'rejected') counts.rejected++;
        else if (outcome === 'alreadyPresent') counts.alreadyPresent++;
        else counts.imported++;
        handled[index] = true;
        options.onProgress?.(++done, events.length);
      }),
    );
    all.push(run);
    if (alone) {
      barrier = run;
      sinceBarrier = [];
      lastByTouch.clear();
    } else {
      for (const touch of event.touches) lastByTouch.set(touch, run);
      sinceBarrier.push(run);
    }
  }
  await Promise.all(all);
  const notStarted = handled.filter((done) => !done).length;
  return {
    events: events.length,
    ...counts,
    seconds: Number(((performance.now() - started) / 1000).toFixed(2)),
    ...(notStarted > 0 ? { unfinished: { notStarted, firstNotDone: handled.indexOf(false) } } : {}),
  };

  async function importOne(event: ImportEvent, merchant: Merchant) {
    // The write gate every write of a request passes (store/client.ts) tells whether this one wrote.
    let wrote = false;
    const gate = {
      start: () => {},
      ready: async () => {
        wrote = true;
      },
    };
    try {
      const result = await runInRequestScope(
        {
          deadline: Number.POSITIVE_INFINITY,
          gate,
          imported: { receivedAt: event.at, idSeed: event.idSeed, idsDrawn: 0 },
        },
        () => USE_CASES[event.type](callOf(event, merchant) as never),
      );
      // A replay, or a disposition or dispute already recorded exactly so: nothing new.
      return result.replayed || !wrote ? 'alreadyPresent' : 'imported';
    } catch (error) {
      // A seeded record that exists already: this very line was imported before.
      if (error instanceof ConditionFailedError) return 'alreadyPresent';
      if (error instanceof ApiError) {
        options.onRejected?.({
          line: event.line,
          code: error.code,
          ...(error.field !== undefined ? { field: error.field } : {}),
          message: error.message,
        });
        return 'rejected';
      }
      throw error;
    }
  }
}

/** The one place an imported line becomes a use case's call: the merchant, the line's body and path id, no webhooks. */
function callOf(event: ImportEvent, merchant: Merchant): EndpointCall<ImportEvent['body']> {
  return {
    endpoint: event.endpoint,
    merchantId: merchant.merchantId,
    body: event.body,
    pathParameters: event.pathParameters,
    // Imported history is the past: it sends no webhook.
    notify: false,
  };
}

/** At most `size` tasks at once; the rest wait their turn in arrival order. */
class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
