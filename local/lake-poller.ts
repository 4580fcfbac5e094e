import { join } from 'node:path';
import type { _Record, DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DuckDBConnection } from '@duckdb/node-api';
import { lakeRowsOfItem } from '../shared/lake/lake-rows.ts';
import type { LakeRow } from '../shared/lake/lake-tables.ts';
import { appendLakeRows, openLocalLake } from '../shared/lake/local-lake.ts';
import { pollEvery } from './poll.ts';
import { checkpointFile, readTableStream, STREAM_READER_REST, streamsClient } from './table-stream.ts';

/**
 * Local mode's lake feed: reads DynamoDB Local's stream of the table, as Firehose reads the table's
 * Kinesis stream in AWS, turns each new image into lake rows (shared/lake/lake-rows.ts, the same
 * function the Firehose transform runs) and appends them as Parquet under `dir`. Where each shard was
 * read to is kept in `dir/_stream.json`, written after the rows, so a crash repeats rows (queries keep
 * each row's latest revision) and loses none. Deletions are not copied: the table's TTL has its
 * lifecycle rule in the bucket, and an erasure rewrites the lake itself (shared/lake/erase.ts).
 *
 * One pass: every shard read from where the last pass stopped; answers how many rows it wrote.
 */
export async function feedLakeOnce(
  lake: DuckDBConnection,
  dir: string,
  client: DynamoDBStreamsClient = streamsClient(),
): Promise<number> {
  const checkpoints = checkpointFile(join(dir, '_stream.json'));
  const read = await readTableStream(checkpoints.load(), client);
  if (!read) return 0;
  const rows = read.records.flatMap(({ record }) => rowsOfRecord(record));
  if (rows.length > 0) await appendLakeRows(lake, dir, rows);
  checkpoints.save(read.checkpoint);
  return rows.length;
}

/**
 * Starts a lake at `dir` at the stream's current end, reading on from where the lake at `after` (an
 * earlier one) stopped: the table's earlier changes are left out of it. The eval starts one per
 * timeline, so each holds its own merchant's rows alone, and no timeline feeds the ones before it
 * again.
 */
export async function startLakeAtStreamEnd(
  dir: string,
  after: string | undefined,
  client: DynamoDBStreamsClient = streamsClient(),
): Promise<void> {
  const earlier = after ? checkpointFile(join(after, '_stream.json')).load() : undefined;
  const read = await readTableStream(earlier, client);
  if (read) checkpointFile(join(dir, '_stream.json')).save(read.checkpoint);
}

function rowsOfRecord(record: _Record): LakeRow[] {
  const image = record.dynamodb?.NewImage;
  if (record.eventName === 'REMOVE' || !image) return [];
  const changedAt = record.dynamodb?.ApproximateCreationDateTime?.getTime() ?? Date.now();
  return lakeRowsOfItem(unmarshall(image as Parameters<typeof unmarshall>[0]), changedAt);
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
    { restPerPass: STREAM_READER_REST },
  );
}
