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
  /** Events started and finished by this run. */
  events: number;
  imported: number;
  alreadyPresent: number;
  rejected: number;
  seconds: number;
}

export interface ImportOptions {
  merchant: Merchant;
  /** Events in flight at most (each waits for earlier events it shares a record or identity with). */
  concurrency?: number;
  /** Called as each event finishes, with the events this run has finished. */
  onProgress?: (done: number) => void;
  /** A line the use case refused (unknown order, conflicting duplicate, ...): it records nothing. */
  onRejected?: (problem: LineProblem) => void;
  /**
   * Asked before each event starts; once it says no, no further event starts and the run ends when
   * those in flight have (a Lambda function nearing its time limit). Without it the run goes to the end.
   */
  keepGoing?: () => boolean;
}

const DEFAULT_CONCURRENCY = 16;
/**
 * Events read ahead of the oldest one still running, per slot: enough to keep every slot busy
 * past events waiting for an earlier one, few enough that memory does not grow with the file.
 */
const READ_AHEAD_PER_SLOT = 32;
/** The read-ahead window of the widest concurrency: a slice's done-ahead lines fit in its recorded state. */
export const READ_AHEAD_MAX = 64 * READ_AHEAD_PER_SLOT;

interface InFlight {
  event: ImportEvent;
  run: Promise<void>;
  settled: boolean;
  outcome?: Outcome;
}

type Outcome = 'imported' | 'alreadyPresent' | 'rejected';

/**
 * Imports `events` in their order, reading them as it goes: at most a window of them is held.
 * `firstNotDone` is the first event read that did not run (out of time): every event before it did,
 * and of those after it, the lines in `doneAfter` did.
 */
export async function runImport(
  events: AsyncIterable<ImportEvent> | Iterable<ImportEvent>,
  options: ImportOptions,
): Promise<ImportSummary & { firstNotDone?: ImportEvent; doneAfter?: number[] }> {
  const started = performance.now();
  const counts = { imported: 0, alreadyPresent: 0, rejected: 0 };
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  let outOfTime = false;
  const slots = new Slots(concurrency);
  const lastByTouch = new Map<string, Promise<void>>();
  let barrier: Promise<void> = Promise.resolve();
  const sinceBarrier = new Set<Promise<void>>();
  const window: InFlight[] = [];
  let firstNotDone: ImportEvent | undefined;
  let done = 0;
  let stopped: unknown;

  for await (const event of events) {
    if (stopped) break;
    const alone = event.touches.includes(EVERYTHING);
    const before = alone ? [...sinceBarrier] : event.touches.flatMap((t) => lastByTouch.get(t) ?? []);
    const entry: InFlight = { event, run: Promise.resolve(), settled: false };
    const run = Promise.all([barrier, ...before]).then(() =>
      slots.run(async () => {
        // After a store failure nothing more starts: the import stops, and a re-run resumes it.
        if (stopped) throw stopped;
        // Latched: once out of time, no later event starts either (their order would break).
        if (outOfTime || (options.keepGoing && !options.keepGoing())) {
          outOfTime = true;
          return;
        }
        const outcome: Outcome = await importOne(event, options.merchant).catch((error: unknown) => {
          stopped ??= error;
          throw error;
        });
        counts[outcome]++;
        entry.outcome = outcome;
        done++;
        options.onProgress?.(done);
      }),
    );
    entry.run = run;
    // Failures are kept in `stopped`; what is left of a settled run is let go.
    run
      .catch(() => {})
      .finally(() => {
        entry.settled = true;
        sinceBarrier.delete(run);
        for (const touch of event.touches) if (lastByTouch.get(touch) === run) lastByTouch.delete(touch);
      });
    window.push(entry);
    if (alone) {
      barrier = run;
      sinceBarrier.clear();
      lastByTouch.clear();
    } else {
      for (const touch of event.touches) lastByTouch.set(touch, run);
      sinceBarrier.add(run);
    }
    while (!firstNotDone && window.length >= Math.min(concurrency * READ_AHEAD_PER_SLOT, READ_AHEAD_MAX)) {
      await window[0]!.run.catch(() => {});
      firstNotDone ??= letGoOfSettled(window);
    }
    if (outOfTime) break;
  }
  await Promise.allSettled(window.map((entry) => entry.run));
  if (stopped) throw stopped;
  firstNotDone ??= letGoOfSettled(window);
  return {
    events: done,
    ...counts,
    seconds: Number(((performance.now() - started) / 1000).toFixed(2)),
    ...(firstNotDone
      ? { firstNotDone, doneAfter: window.flatMap((entry) => (entry.outcome ? [entry.event.line] : [])) }
      : {}),
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

/**
 * Drops the settled runs at the window's front up to the first that did not run (out of time),
 * which stays at the front with those after it; that event, if any.
 */
function letGoOfSettled(window: InFlight[]): ImportEvent | undefined {
  while (window[0]?.settled) {
    if (!window[0].outcome) return window[0].event;
    window.shift();
  }
  return undefined;
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
