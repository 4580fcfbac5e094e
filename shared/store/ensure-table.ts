import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, TTL_ATTRIBUTE } from './table-definition.ts';

/**
 * Creates the single table from its shared definition if it does not exist yet (local and tests).
 * `stream: false` leaves out its stream, which only the local lake feed reads: DynamoDB Local looks
 * through every stream record it holds on every call, so a test table that needs none does without.
 */
export async function ensureTable(
  client: DynamoDBClient,
  tableName: string,
  { stream = true }: { stream?: boolean } = {},
): Promise<void> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if (
      !(error instanceof ResourceNotFoundException) &&
      (error as Error).name !== 'ResourceNotFoundException'
    ) {
      throw error;
    }
  }
  const { StreamSpecification, ...withoutStream } = createTableInput(tableName);
  await client.send(
    new CreateTableCommand(stream ? { ...withoutStream, StreamSpecification } : withoutStream),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
}
