import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb-local.ts';
import { applyLocalEnvironment, LOCAL_TABLE_NAME } from '../../local/local-env.ts';

/** One in-memory DynamoDB Local per test run, with the table created from its shared definition. */
let dynamoDb: DynamoDbLocal | undefined;

export async function setup(project: TestProject) {
  dynamoDb = await startDynamoDbLocal({});
  applyLocalEnvironment(dynamoDb.endpoint);
  const { ensureTable } = await import('../../shared/store/ensure-table.ts');
  const { dynamoDbClient } = await import('../../shared/store/client.ts');
  await ensureTable(dynamoDbClient, LOCAL_TABLE_NAME);
  project.provide('dynamoDbEndpoint', dynamoDb.endpoint);
}

export async function teardown() {
  await dynamoDb?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
  }
}
