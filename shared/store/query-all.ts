import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './client.ts';
import { GSI1 } from './table-definition.ts';

/** Pages through a Query; `take` returns false to stop early. */
export async function queryAll(
  input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName' | 'ExclusiveStartKey'>,
  take: (item: Record<string, unknown>) => boolean,
): Promise<void> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({ ...input, TableName: tableName, ExclusiveStartKey: startKey }),
    );
    for (const item of page.Items ?? []) if (!take(item)) return;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** The first `limit` items of one GSI1 partition in its sort order: a job queue, oldest first. */
export async function firstInGsi1Partition<T>(partition: string, limit: number): Promise<T[]> {
  const found: T[] = [];
  await queryAll(
    {
      IndexName: GSI1.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': GSI1.partitionKey },
      ExpressionAttributeValues: { ':pk': partition },
    },
    (item) => found.push(item as T) < limit,
  );
  return found;
}
