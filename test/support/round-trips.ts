import { dynamoDbClient } from '../../shared/store/client.ts';

/**
 * Counts DynamoDB round trips (one per command sent, retries included) through an SDK middleware
 * on the shared client, the same client the handlers use.
 */
const sent: string[] = [];
let installed = false;

export function countRoundTrips() {
  if (!installed) {
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(context.commandName ?? 'unknown');
        return next(args);
      },
      { step: 'finalizeRequest', name: 'roundTripCounter' },
    );
    installed = true;
  }
  const start = sent.length;
  return { commands: () => sent.slice(start) };
}
