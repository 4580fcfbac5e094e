import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb-local.ts';
import { applyLocalEnvironment, LOCAL_TABLE_NAME } from '../../local/local-env.ts';

/** One in-memory DynamoDB Local per test run, with the table created from its shared definition. */
let dynamoDb: DynamoDbLocal | undefined;
/** One line per test file: how many responses the contract helper checked (test/support/contract.ts). */
const contractTally = join(mkdtempSync(join(tmpdir(), 'contract-')), 'validated.txt');

export async function setup(project: TestProject) {
  dynamoDb = await startDynamoDbLocal({});
  applyLocalEnvironment(dynamoDb.endpoint);
  const { ensureTable } = await import('../../shared/store/ensure-table.ts');
  const { dynamoDbClient } = await import('../../shared/store/client.ts');
  await ensureTable(dynamoDbClient, LOCAL_TABLE_NAME, { stream: false });
  project.provide('dynamoDbEndpoint', dynamoDb.endpoint);
  project.provide('contractTallyFile', contractTally);
}

export async function teardown() {
  await dynamoDb?.stop();
  let lines: string[] = [];
  try {
    lines = readFileSync(contractTally, 'utf8').split('\n').filter(Boolean);
  } catch {
    // no suite made an HTTP request
  }
  const total = lines.reduce((sum, line) => sum + Number(line), 0);
  console.log(`contract: ${total} responses validated against openapi.json in ${lines.length} test files`);
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoDbEndpoint: string;
    contractTallyFile: string;
  }
}
