import { dynamoDbClient } from '../../shared/store/client.ts';

/**
 * Counts DynamoDB round trips (one per command sent, retries included) through an SDK middleware
 * on the shared client, the same client the handlers use. Each call's start and end are stamped on
 * one sequence, and the rate-limit token's UpdateItem is told apart by its key, so a test can show
 * the request's own calls, the token taken beside them, and how many round trips the request
 * waited for one after another.
 */
export interface SentCall {
  name: string;
  /** The UpdateItem on the merchant's rate-limit bucket. */
  rateLimitToken: boolean;
  start: number;
  end: number;
}

const sent: SentCall[] = [];
let clock = 0;
let installed = false;

export function countRoundTrips() {
  if (!installed) {
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        const key = (args.input as { Key?: { PK?: { S?: string } } }).Key?.PK?.S ?? '';
        const call: SentCall = {
          name: context.commandName ?? 'unknown',
          rateLimitToken: key.endsWith('#RATELIMIT'),
          start: ++clock,
          end: Number.POSITIVE_INFINITY,
        };
        sent.push(call);
        try {
          return await next(args);
        } finally {
          call.end = ++clock;
        }
      },
      { step: 'finalizeRequest', name: 'roundTripCounter' },
    );
    installed = true;
  }
  const first = sent.length;
  return {
    /** Every command sent since the counter started, in the order they were sent. */
    commands: () => sent.slice(first).map((c) => c.name),
    calls: () => sent.slice(first),
  };
}

/**
 * The calls of the endpoint itself: the API-key lookups (GetItems) that come first when the test
 * run's key cache has lapsed under load are authentication, not the endpoint.
 */
function afterAuthentication(calls: readonly SentCall[]): SentCall[] {
  const first = calls.findIndex((call) => call.name !== 'GetItemCommand');
  return first < 0 ? [] : calls.slice(first);
}

/**
 * What a request cost: its own commands in order, the rate-limit tokens taken beside them, and its
 * sequential round trips (the longest chain of calls each sent after the previous one answered).
 */
function roundTripReport(calls: readonly SentCall[]) {
  const ordered = [...calls].sort((a, b) => a.start - b.start);
  const chain: number[] = [];
  ordered.forEach((call, i) => {
    const before = ordered.slice(0, i).filter((earlier) => earlier.end < call.start);
    chain.push(1 + Math.max(0, ...before.map((earlier) => chain[ordered.indexOf(earlier)]!)));
  });
  return {
    own: ordered.filter((call) => !call.rateLimitToken).map((call) => call.name),
    rateLimitTokens: ordered.filter((call) => call.rateLimitToken).length,
    sequential: Math.max(0, ...chain),
  };
}

/**
 * Sends one request and reports what it cost in DynamoDB calls (authentication lookups left out),
 * with the response so the caller can check it answered as expected.
 */
export async function measureRoundTrips<T>(send: () => Promise<T>) {
  const counter = countRoundTrips();
  const response = await send();
  return { response, report: roundTripReport(afterAuthentication(counter.calls())) };
}
