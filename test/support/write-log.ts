import { dynamoDbClient } from '../../shared/store/client.ts';

/**
 * Records every write command sent on the shared client, except the rate-limit bucket's
 * UpdateItem (every request takes a token by design). A request that sent no write changed nothing.
 */
const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);
const written: string[] = [];
let installed = false;

export function watchWrites(): () => string[] {
  if (!installed) {
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        const name = context.commandName ?? '';
        const key = (args.input as { Key?: { PK?: { S?: string } } }).Key?.PK?.S ?? '';
        if (WRITES.has(name) && !key.endsWith('#RATELIMIT')) written.push(name);
        return next(args);
      },
      { step: 'finalizeRequest', name: 'writeLog' },
    );
    installed = true;
  }
  const first = written.length;
  return () => written.slice(first);
}
