/**
 * Capacity per request as AWS would bill it, for the benchmarks that run the service on DynamoDB
 * Local (`bench-scale.ts`, `bench-e2e-service.ts`): a middleware on the service's own client. Write
 * units by the AWS rules from each written item's size before and after the write, read by a second,
 * unmetered client (transactional writes 2 per KB, the GSI1 copy 1 per KB: DynamoDB Local's own
 * figures for transactions do not follow them); read units from ReturnConsumedCapacity. Writes are
 * also counted per partition key (table PK, GSI1PK).
 */
import type { ConsumedCapacity, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { itemBytes } from '../shared/store/item-size.ts';

/** Meters every call `client` makes from now on while `meter.metering` is true. */
export async function installCapacityMeter(
  client: DynamoDBClient,
  endpoint: string,
  tableName: string,
): Promise<Meter> {
  const meter = new Meter();
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoDBDocumentClient, GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { marshall } = await import('@aws-sdk/util-dynamodb');
  // Items are sized by a second, unmetered client.
  const sizer = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1', endpoint }), {
    marshallOptions: { removeUndefinedValues: true, allowImpreciseNumbers: true },
  });
  const stored = async (key: Record<string, unknown>) => {
    const { Item } = await sizer.send(
      new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }),
    );
    return Item
      ? { bytes: itemBytes(marshall(Item, { removeUndefinedValues: true })), indexed: 'GSI1PK' in Item }
      : undefined;
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!meter.metering) return next(args);
      const command = context.commandName ?? '';
      const input = args.input as Record<string, unknown>;
      const writes = writesOf(command, input);
      meter.countWrites(writes);
      if (READ_COMMANDS.has(command)) input.ReturnConsumedCapacity = 'TOTAL';
      const keysWritten = writes.map((w) => keyOf(w));
      const before = await Promise.all(keysWritten.map(stored));
      let result: Awaited<ReturnType<typeof next>>;
      try {
        result = await next(args);
      } catch (error) {
        // A write refused by its condition still costs a write unit.
        if (writes.length > 0) meter.wcu += 1;
        throw error;
      }
      const after = await Promise.all(keysWritten.map(stored));
      const transactional = command === 'TransactWriteItemsCommand' ? 2 : 1;
      writes.forEach((write, i) => {
        const largest = Math.max(before[i]?.bytes ?? 0, after[i]?.bytes ?? 0);
        const units = transactional * Math.max(1, Math.ceil(largest / 1024));
        if (stringOf(keyOf(write).PK)?.endsWith('#RATELIMIT')) meter.rateLimitWcu += units;
        else meter.wcu += units;
        // GSI1 projects ALL: an indexed item is written to the index as well (1 WCU per KB).
        if (after[i]?.indexed) meter.wcu += Math.max(1, Math.ceil((after[i]?.bytes ?? 0) / 1024));
      });
      if (READ_COMMANDS.has(command))
        meter.addReads((result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity);
      return result;
    },
    { step: 'initialize', priority: 'low', name: 'benchMeter' },
  );
  return meter;
}

const READ_COMMANDS = new Set([
  'BatchGetItemCommand',
  'GetItemCommand',
  'QueryCommand',
  'TransactGetItemsCommand',
]);

type AttributeValue = Record<string, unknown>;
type Write = { Key?: AttributeValue; Item?: AttributeValue };

/** The items a command writes (document-client shapes: the meter runs before marshalling). */
function writesOf(command: string, input: Record<string, unknown>): Write[] {
  if (command === 'TransactWriteItemsCommand') {
    return (input.TransactItems as Record<string, Write>[]).flatMap((t) => {
      const write = t.Put ?? t.Update ?? t.Delete;
      return write ? [write] : [];
    });
  }
  if (command === 'PutItemCommand' || command === 'UpdateItemCommand' || command === 'DeleteItemCommand')
    return [input as Write];
  return [];
}

const keyOf = (write: Write): Record<string, unknown> => {
  const source = (write.Key ?? write.Item)!;
  return { PK: source.PK, SK: source.SK };
};

/** Capacity consumed and writes per partition key (table PK, GSI1PK), as sent to DynamoDB. */
export class Meter {
  /** Off while timing: sizing items adds reads the service does not make. */
  metering = true;
  /** Write units of the decision's own items (record, identities, index). */
  wcu = 0;
  /** Write units of rate-limit bucket writes, kept apart: a lease is shared by many requests. */
  rateLimitWcu = 0;
  rcu = 0;
  private readonly writes = new Map<string, number>();

  reset(): void {
    this.wcu = 0;
    this.rateLimitWcu = 0;
    this.rcu = 0;
    this.writes.clear();
  }

  addReads(consumed: unknown): void {
    const list = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as ConsumedCapacity[];
    for (const c of list) this.rcu += c.ReadCapacityUnits ?? c.CapacityUnits ?? 0;
  }

  countWrites(writes: readonly Write[]): void {
    for (const write of writes) {
      const pk = stringOf((write.Item ?? write.Key)?.PK);
      if (pk) this.writes.set(`table ${pk}`, (this.writes.get(`table ${pk}`) ?? 0) + 1);
      const gsi = stringOf(write.Item?.GSI1PK);
      if (gsi) this.writes.set(`GSI1 ${gsi}`, (this.writes.get(`GSI1 ${gsi}`) ?? 0) + 1);
    }
  }

  get keyCount(): number {
    return this.writes.size;
  }

  busiest(counted: (key: string) => boolean): { key: string; writes: number } {
    let best = { key: '-', writes: 0 };
    for (const [key, writes] of this.writes) if (counted(key) && writes > best.writes) best = { key, writes };
    return best;
  }

  writesTo(key: string): number {
    return this.writes.get(key) ?? 0;
  }
}

/** A key attribute as the document client or the low-level client carries it. */
const stringOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : (value as { S?: string } | undefined)?.S;
