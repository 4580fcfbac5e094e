import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { feedOverviewCounters } from '../shared/console/overview-feed.ts';
import { pollEvery } from './poll.ts';
import {
  checkpointFile,
  readTableStream,
  STREAM_READER_REST,
  type StreamCheckpoint,
  streamsClient,
} from './table-stream.ts';

/**
 * Local mode's overview feed: DynamoDB Local's stream of the table, read as the feed function reads
 * the table's Kinesis stream in AWS, into the same counters (shared/console/overview-feed.ts). Where
 * each shard was read to is kept in `file` when given (`npm start`: `.data/overview-stream.json`),
 * else in memory. A change read again (from the stream's start, or after a crash before the
 * checkpoint was saved) is counted once all the same: the counters' per-shard guard.
 */
export function overviewFeed(client: DynamoDBStreamsClient = streamsClient(), file?: string) {
  const checkpoints = file ? checkpointFile(file) : undefined;
  let checkpoint: StreamCheckpoint | undefined = checkpoints?.load();
  /** One pass: every shard from where the last pass stopped; answers how many changes it read. */
  return async (): Promise<number> => {
    const read = await readTableStream(checkpoint, client);
    if (!read) return 0;
    await feedOverviewCounters(
      read.records.map(({ shardId, record }) => ({
        shardId,
        sequenceNumber: record.dynamodb?.SequenceNumber ?? '',
        eventName: record.eventName ?? '',
        newImage: record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined,
      })),
    );
    checkpoint = read.checkpoint;
    checkpoints?.save(checkpoint);
    return read.records.length;
  };
}

/**
 * `npm start`'s overview feed: a pass every second, so a decision shows on the overview at once;
 * paced as a stream reader (STREAM_READER_REST) when DynamoDB Local's stream reads grow slow.
 */
export function startOverviewPoller(
  options: { checkpointFile?: string; intervalMs?: number; log?: (line: string) => void } = {},
) {
  const log = options.log ?? console.log;
  const pass = overviewFeed(streamsClient(), options.checkpointFile);
  return pollEvery(
    options.intervalMs ?? 1_000,
    async () => {
      await pass();
    },
    (error) => log(`overview feed: ${error.message}`),
    { restPerPass: STREAM_READER_REST },
  );
}
