import { join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { LakeEraser } from '../shared/lake/lake-erasure.ts';
import { duckDbRunner, type LakeQueryRunner } from '../shared/lake/lake-queries.ts';
import { openLocalLake } from '../shared/lake/local-lake.ts';
import { localLakeEraser } from '../shared/lake/local-lake-erasure.ts';
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

/**
 * The erasure on the local lake (the privacy poller's), caught up with the table's stream first so
 * every row of the customer the table had is there to take out.
 */
export const caughtUpLakeEraser =
  (dir = localLakeDir()): LakeEraser =>
  async (erasure) => {
    const lake = await caughtUpLakeConnection(dir);
    try {
      return await localLakeEraser(lake, dir)(erasure);
    } finally {
      lake.closeSync();
    }
  };
