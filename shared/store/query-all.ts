import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './client.ts';

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
