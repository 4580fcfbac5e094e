import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import {
  type _Record,
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListStreamsCommand,
  type StreamDescription,
} from '@aws-sdk/client-dynamodb-streams';
import { readRuntimeConfig } from '../shared/config.ts';
import { dynamoDbClient, tableName } from '../shared/store/client.ts';

/**
 * DynamoDB Local's stream of the table, read as local mode's stand-in for the AWS consumers of the
 * table's changes (the lake feed, the overview feed): each reader keeps where it read each shard to.
 */
export interface StreamCheckpoint {
  streamArn: string;
  /** Per shard: the last sequence number read, or `closed` once a closed shard was read to its end. */
  shards: Record<string, string>;
}

/**
 * A reader's checkpoint kept in a file under `.data`: a restarted `npm start` reads on from where the
 * reader stopped, not again from the stream's start (a large merchant's whole history). Written after
 * the reader used the changes, so a crash repeats changes and loses none.
 */
export function checkpointFile(file: string): {
  load: () => StreamCheckpoint | undefined;
  save: (checkpoint: StreamCheckpoint) => void;
} {
  return {
    load: () => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as StreamCheckpoint) : undefined),
    save: (checkpoint) => {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(checkpoint));
    },
  };
}

/** The changes of one pass, each with its shard, in shard order. */
export interface StreamRecords {
  checkpoint: StreamCheckpoint;
  records: { shardId: string; record: _Record }[];
}

export const streamsClient = () => {
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

/**
 * Records a GetRecords call answers at most. Each call costs DynamoDB Local a walk through the stream
 * records of the table's other shards (it keeps them without an index by shard): 9.5 s a call in the
 * day after a 150,000-order import, with every request waiting for its one SQLite queue meanwhile (a
 * write that waits too long for its lock fails). Hence full pages, no call for an empty last page,
 * and paced readers (STREAM_READER_REST).
 */
const GET_RECORDS_LIMIT = 1000;

/**
 * How many times as long as its pass a local stream reader rests before the next (`pollEvery`'s
 * `restPerPass`): the lake and overview feeds together then hold DynamoDB Local at most 2/5 of the
 * time, however slow its stream reads grow.
 */
export const STREAM_READER_REST = 4;

/**
 * Every shard read from where `saved` stopped (from its start for a new stream); undefined while the
 * table has no stream yet (switched on here, so the next pass reads it).
 */
export async function readTableStream(
  saved: StreamCheckpoint | undefined,
  client: DynamoDBStreamsClient,
): Promise<StreamRecords | undefined> {
  const stream = await enabledStream(client);
  const streamArn = stream?.StreamArn;
  if (!stream || !streamArn) return undefined;
  const checkpoint: StreamCheckpoint =
    saved?.streamArn === streamArn ? { streamArn, shards: { ...saved.shards } } : { streamArn, shards: {} };
  const records: StreamRecords['records'] = [];
  for (const shardId of await shardIds(client, stream)) {
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
      const page = await client.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: GET_RECORDS_LIMIT }),
      );
      const read = page.Records ?? [];
      for (const record of read) records.push({ shardId, record });
      const newest = read.at(-1)?.dynamodb?.SequenceNumber;
      if (newest) checkpoint.shards[shardId] = newest;
      if (!page.NextShardIterator) checkpoint.shards[shardId] = 'closed';
      // A short page is the shard's end for this pass: no call for the empty page after it (below).
      iterator = read.length === GET_RECORDS_LIMIT ? page.NextShardIterator : undefined;
    }
  }
  return { checkpoint, records };
}

/**
 * The table's enabled stream, described (its first page of shards), switched on for a table made
 * before the lake had one (answers undefined then). Found through DynamoDB Streams, not
 * DescribeTable: DynamoDB Local's DescribeTable counts the table's items, about 5 s on a
 * 150,000-order merchant's table (400,000 items), holding the lock every write waits for; a reader
 * polling each second then timed those writes out.
 */
async function enabledStream(client: DynamoDBStreamsClient): Promise<StreamDescription | undefined> {
  const { Streams } = await client.send(new ListStreamsCommand({ TableName: tableName }));
  // Each ARN ends with its stream's creation time: the greatest is the newest stream.
  const newest = (Streams ?? [])
    .flatMap(({ StreamArn }) => (StreamArn ? [StreamArn] : []))
    .sort()
    .at(-1);
  if (newest) {
    const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: newest }));
    if (StreamDescription?.StreamStatus === 'ENABLED' || StreamDescription?.StreamStatus === 'ENABLING')
      return StreamDescription;
  }
  await dynamoDbClient.send(
    new UpdateTableCommand({
      TableName: tableName,
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  return undefined;
}

/** Every shard of the described stream: its first page, then the pages after it. */
async function shardIds(client: DynamoDBStreamsClient, stream: StreamDescription): Promise<string[]> {
  const ids: string[] = [];
  let page: StreamDescription | undefined = stream;
  while (page) {
    for (const shard of page.Shards ?? []) if (shard.ShardId) ids.push(shard.ShardId);
    const start: string | undefined = page.LastEvaluatedShardId;
    page = start
      ? (
          await client.send(
            new DescribeStreamCommand({ StreamArn: stream.StreamArn, ExclusiveStartShardId: start }),
          )
        ).StreamDescription
      : undefined;
  }
  return ids;
}
