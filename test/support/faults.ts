import { dynamoDbClient } from '../../shared/store/client.ts';

/**
 * Fault injection on the shared DynamoDB client (the one the handlers use): the next `times` calls of
 * a command fail with the given error before reaching DynamoDB Local.
 */
interface Fault {
  command: string;
  remaining: number;
  error: () => Error;
}

const faults: Fault[] = [];
let installed = false;

export function injectFault(command: string, error: () => Error, times = 1): void {
  if (!installed) {
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        const fault = faults.find((f) => f.command === context.commandName && f.remaining > 0);
        if (fault) {
          fault.remaining--;
          throw fault.error();
        }
        return next(args);
      },
      { step: 'initialize', name: 'faultInjector' },
    );
    installed = true;
  }
  faults.push({ command, remaining: times, error });
}

export function clearFaults(): void {
  faults.length = 0;
}
