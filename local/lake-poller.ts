import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DescribeTableCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DuckDBConnection } from '@duckdb/node-api';
import { readRuntimeConfig } from '../shared/config.ts';
import { lakeRowsOfItem } from '../shared/lake/lake-rows.ts';
import type { LakeRow } from '../shared/lake/lake-tables.ts';
import { appendLakeRows, openLocalLake } from '../shared/lake/local-lake.ts';
import { dynamoDbClient, tableName } from '../shared/store/client.ts';
import { pollEvery } from './poll.ts';

/**
 * Local mode's lake feed: reads DynamoDB Local's stream of the table, as Firehose reads the table's
 * Kinesis stream in AWS, turns each new image into lake rows (shared/lake/lake-rows.ts, the same
 * function the Firehose transform runs) and appends them as Parquet under `dir`. Where each shard was
 * read to is kept in `dir/_stream.json`, written after the rows, so a crash repeats rows (queries keep
 * each row's latest revision) and loses none. Deletions are not copied: the table's TTL has its
 * lifecycle rule in the bucket, and an erasure rewrites the lake itself (shared/lake/erase.ts).
 */
interface StreamCheckpoint {
  streamArn: string;
  /** Per shard: the last sequence number read, or `closed` once a closed shard was read to its end. */
  shards: Record<string, string>;
}

const streamsClient = () => {
  const config = readRuntimeConfig();
  return new DynamoDBStreamsClient({
    region: config.region,
    ...(config.dynamoDbEndpoint
      ? {
          endpoint: config.dynamoDbEndpoint,
          credentials: {
            accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local',
            secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
          },
        }
      : {}),
  });
};

/** One pass: every shard read from where the last pass stopped; answers how many rows it wrote. */
export async function feedLakeOnce(
  lake: DuckDBConnection,
  dir: string,
  client: DynamoDBStreamsClient = streamsClient(),
): Promise<number> {
  const streamArn = await tableStreamArn();
  if (!streamArn) return 0;
  const file = join(dir, '_stream.json');
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as StreamCheckpoint) : undefined;
  const checkpoint: StreamCheckpoint = saved?.streamArn === streamArn ? saved : { streamArn, shards: {} };
  const rows: LakeRow[] = [];
  for (const shardId of await shardIds(client, streamArn)) {
    const last = checkpoint.shards[shardId];
    if (last === 'closed') continue;
    let iterator = (
      await client.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(last
            ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: last }
            : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      )
    ).ShardIterator;
    while (iterator) {
      const page = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      const records = page.Records ?? [];
      for (const record of records) rows.push(...rowsOfRecord(record));
      const newest = records.at(-1)?.dynamodb?.SequenceNumber;
      if (newest) checkpoint.shards[shardId] = newest;
      if (!page.NextShardIterator) checkpoint.shards[shardId] = 'closed';
      // An open shard answers an empty page once it is read to its end.
      iterator = records.length > 0 ? page.NextShardIterator : undefined;
    }
  }
  if (rows.length > 0) await appendLakeRows(lake, dir, rows);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(checkpoint));
  return rows.length;
}

function rowsOfRecord(record: _Record): LakeRow[] {
  const image = record.dynamodb?.NewImage;
  if (record.eventName === 'REMOVE' || !image) return [];
  const changedAt = record.dynamodb?.ApproximateCreationDateTime?.getTime() ?? Date.now();
  return lakeRowsOfItem(unmarshall(image as Parameters<typeof unmarshall>[0]), changedAt);
}

/** The table's stream, switched on for a table made before the lake had one (answers undefined then). */
async function tableStreamArn(): Promise<string | undefined> {
  const { Table } = await dynamoDbClient.send(new DescribeTableCommand({ TableName: tableName }));
  if (Table?.StreamSpecification?.StreamEnabled && Table.LatestStreamArn) return Table.LatestStreamArn;
  await dynamoDbClient.send(
    new UpdateTableCommand({
      TableName: tableName,
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  return undefined;
}

async function shardIds(client: DynamoDBStreamsClient, streamArn: string): Promise<string[]> {
  const ids: string[] = [];
  let start: string | undefined;
  do {
    const { StreamDescription } = await client.send(
      new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }),
    );
    for (const shard of StreamDescription?.Shards ?? []) if (shard.ShardId) ids.push(shard.ShardId);
    start = StreamDescription?.LastEvaluatedShardId;
  } while (start);
  return ids;
}

/** `npm start`'s feed: a pass every few seconds into `dir` (`.data/lake`). */
export async function startLakePoller(
  dir: string,
  options: { intervalMs?: number; log?: (line: string) => void } = {},
) {
  const log = options.log ?? console.log;
  const lake = await openLocalLake(dir);
  const client = streamsClient();
  return pollEvery(
    options.intervalMs ?? 5_000,
    async () => {
      await feedLakeOnce(lake, dir, client);
    },
    (error) => log(`lake feed: ${error.message}`),
  );
}
