import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readRuntimeConfig } from '../config.ts';
import { RecordTooLargeError, StoreUnavailableError } from '../errors.ts';
import { currentRequestScope } from '../request-scope.ts';
import { traceAwsClient } from '../tracing.ts';
import { isThrottle, isTimeout, isTooLargeToStore } from './store-failures.ts';

/**
 * One DynamoDB client per process, built at module scope so warm invocations reuse its connections.
 * Locally DYNAMODB_ENDPOINT points it at DynamoDB Local, with dummy credentials when none are set.
 */
const config = readRuntimeConfig();

const localCredentials = config.dynamoDbEndpoint
  ? {
      accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local',
      secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
    }
  : undefined;

export const dynamoDbClient: DynamoDBClient = traceAwsClient(
  new DynamoDBClient({
    region: config.region,
    ...(config.dynamoDbEndpoint ? { endpoint: config.dynamoDbEndpoint, credentials: localCredentials } : {}),
  }),
);

/** Commands that may change the table; PartiQL ones are counted in, being opaque. */
const WRITE_COMMANDS = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
  'ExecuteStatementCommand',
  'BatchExecuteStatementCommand',
  'ExecuteTransactionCommand',
]);

/**
 * The request's write gate (shared/request-scope.ts), enforced here so no use case can forget it:
 * the request's first call starts the gate's check alongside itself, and every write waits until
 * the check has passed. Calls outside a request (admin CLI, the check itself) pass untouched.
 */
dynamoDbClient.middlewareStack.add(
  (next, context) => async (args) => {
    const gate = currentRequestScope()?.gate;
    if (gate) {
      gate.start();
      if (WRITE_COMMANDS.has(context.commandName ?? '')) await gate.ready();
    }
    return next(args);
  },
  { step: 'initialize', priority: 'high', name: 'requestWriteGate' },
);

/**
 * Throttling and timeouts that outlast the SDK's own retries become StoreUnavailableError here, in
 * the persistence layer: handlers answer it 503 with Retry-After, never 500.
 */
dynamoDbClient.middlewareStack.add(
  (next) => async (args) => {
    try {
      return await next(args);
    } catch (error) {
      if (isThrottle(error) || isTimeout(error)) {
        throw new StoreUnavailableError('DynamoDB is throttling or not answering in time', { cause: error });
      }
      if (isTooLargeToStore(error)) throw new RecordTooLargeError({ cause: error });
      throw error;
    }
  },
  { step: 'initialize', priority: 'high', name: 'storeUnavailable' },
);

/**
 * Numbers as the store reads and writes them. Amounts may be up to 18 integer digits (docs/decisions.md,
 * Validation), and counters sum them, so numbers past 2^53 are normal here: they are written as the
 * nearest double (DynamoDB keeps 38 digits) and read back as a JS number. The SDK's defaults would
 * throw on the write and return a BigInt on the read, which no arithmetic can mix with numbers.
 */
export const UNMARSHALL_OPTIONS: Readonly<{ wrapNumbers: (text: string) => number }> = {
  wrapNumbers: (text) => Number(text),
};

export const documentClient = DynamoDBDocumentClient.from(dynamoDbClient, {
  marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false, allowImpreciseNumbers: true },
  // A copy: lib-dynamodb writes its own defaults (convertWithoutMapWrapper) into the object it gets.
  unmarshallOptions: { ...UNMARSHALL_OPTIONS },
});

export const tableName = config.tableName;
