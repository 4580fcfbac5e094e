import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, TTL_ATTRIBUTE } from './table-definition.ts';

/** Creates the single table from its shared definition if it does not exist yet (local and tests). */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
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
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
}
