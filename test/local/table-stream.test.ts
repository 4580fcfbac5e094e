import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// A table of its own, made without a stream: the reader must switch it on.
vi.hoisted(() => {
  process.env.TABLE_NAME = `stream-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});

const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
const { readTableStream, streamsClient } = await import('../../local/table-stream.ts');
const { documentClient, tableName } = await import('../../shared/store/client.ts');
const { createOwnTable, dropOwnTable } = await import('../support/table-snapshot.ts');

const put = (sortKey: string) =>
  documentClient.send(
    new PutCommand({ TableName: tableName, Item: { PK: 'TEST#stream', SK: sortKey, entity: 'test' } }),
  );

const sortKeys = (read: Awaited<ReturnType<typeof readTableStream>>) =>
  read?.records.map(({ record }) => record.dynamodb?.Keys?.SK?.S);

/**
 * DynamoDB Local's stream as the local feeds read it (the lake's and the overview's): a table made
 * before the lake had a stream gets one from the first pass, and each pass reads on from the last.
 */
describe("the local feeds' reader of the table's stream", () => {
  beforeAll(() => createOwnTable({ stream: false }));
  afterAll(() => dropOwnTable());

  it('switches the stream on for a table made without one, then reads each change once, in order', async () => {
    const client = streamsClient();
    await put('before');
    expect(await readTableStream(undefined, client)).toBeUndefined();

    await put('first');
    await put('second');
    const read = await readTableStream(undefined, client);
    expect(sortKeys(read)).toEqual(['first', 'second']);

    await put('third');
    const next = await readTableStream(read?.checkpoint, client);
    expect(next?.checkpoint.streamArn).toBe(read?.checkpoint.streamArn);
    expect(sortKeys(next)).toEqual(['third']);
  });
});
