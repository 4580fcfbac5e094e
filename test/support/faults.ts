import { dynamoDbClient } from '../../shared/store/client.ts';

/**
 * Fault injection on the shared DynamoDB client (the one the handlers use): calls of a command (or
 * of any command, '*') fail with the given error, either before reaching DynamoDB Local or, with
 * `afterSend`, after DynamoDB Local has applied them (the answer is lost, as on a timeout).
 * `skip` lets that many matching calls through first, so the fault hits the Nth call.
 */
interface Fault {
  command: string;
  skip: number;
  remaining: number;
  afterSend: boolean;
  error: () => Error;
}

export interface FaultOptions {
  /** How many matching calls fail (default 1). */
  times?: number;
  /** Matching calls let through before the first failure (default 0). */
  skip?: number;
  /** Fail after DynamoDB applied the call instead of before sending it. */
  afterSend?: boolean;
}

const faults: Fault[] = [];
let installed = false;

export function injectFault(command: string, error: () => Error, options: number | FaultOptions = {}): void {
  if (!installed) {
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        const fault = faults.find(
          (f) => (f.command === '*' || f.command === context.commandName) && f.remaining > 0,
        );
        if (!fault) return next(args);
        if (fault.skip > 0) {
          fault.skip--;
          return next(args);
        }
        fault.remaining--;
        if (fault.afterSend) await next(args);
        throw fault.error();
      },
      { step: 'initialize', name: 'faultInjector' },
    );
    installed = true;
  }
  const {
    times = 1,
    skip = 0,
    afterSend = false,
  } = typeof options === 'number' ? { times: options } : options;
  faults.push({ command, skip, remaining: times, afterSend, error });
}

export function clearFaults(): void {
  faults.length = 0;
}

/** How many injected failures have not fired yet. */
export function pendingFaults(): number {
  return faults.reduce((sum, f) => sum + f.remaining, 0);
}

/** What real DynamoDB raises under contention (DynamoDB Local never does). */
export const transactionConflict = () =>
  Object.assign(new Error('Transaction cancelled, please refer cancellation reasons for specific reasons'), {
    name: 'TransactionCanceledException',
    CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
  });

export const throttled = () =>
  Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
    name: 'ThrottlingException',
  });

export const timedOut = () => Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
