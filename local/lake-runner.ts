import { join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { duckDbRunner, type LakeQueryRunner } from '../shared/lake/lake-queries.ts';
import { openLocalLake } from '../shared/lake/local-lake.ts';
import { feedLakeOnce } from './lake-poller.ts';

/** The local lake: LAKE_DIR, else `lake/` in DATA_DIR (`.data`), where `npm start` feeds it. */
export const localLakeDir = (env: NodeJS.ProcessEnv = process.env) =>
  resolve(env.LAKE_DIR ?? join(env.DATA_DIR ?? '.data', 'lake'));

/** A connection to the local lake caught up with the table's stream. */
export async function caughtUpLakeConnection(dir = localLakeDir()): Promise<DuckDBConnection> {
  const lake = await openLocalLake(dir);
  await feedLakeOnce(lake, dir);
  return lake;
}

/**
 * The local lake caught up with the table's stream, and a runner of its queries: what the admin CLI
 * and the eval train from, as the nightly state machine's items query Athena in AWS.
 */
export async function caughtUpLake(dir = localLakeDir()): Promise<LakeQueryRunner> {
  return duckDbRunner(await caughtUpLakeConnection(dir));
}
