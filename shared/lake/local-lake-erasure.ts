import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import {
  type ErasedPartition,
  erasedPartitions,
  keptRowsQuery,
  type LakeEraser,
  type LakeErasure,
  outcomeOf,
  partitionPath,
} from './lake-erasure.ts';
import { duckDbRunner } from './lake-queries.ts';
import { defineLakeViews, sqlText } from './local-lake.ts';

/**
 * The erasure on the local lake at `dir` (shared/lake/local-lake.ts): each partition found is
 * rewritten with DuckDB, its kept rows copied to a new file that takes its place once complete
 * (written as `.tmp`, which the views do not read, then renamed), then the files it was read from
 * deleted. A crash in between leaves rows twice, never none: queries keep each row's latest
 * revision, and the next pass rewrites what still matches.
 */
export function localLakeEraser(connection: DuckDBConnection, dir: string): LakeEraser {
  return async (erasure) => {
    const partitions = await erasedPartitions(duckDbRunner(connection), erasure);
    for (const partition of partitions) await rewritePartition(connection, dir, partition, erasure);
    if (partitions.length > 0) await defineLakeViews(connection, dir);
    return outcomeOf(partitions);
  };
}

async function rewritePartition(
  connection: DuckDBConnection,
  dir: string,
  partition: ErasedPartition,
  erasure: LakeErasure,
): Promise<void> {
  const folder = join(dir, partitionPath(partition, erasure.merchantId));
  const readFrom = readdirSync(folder).filter((name) => name.endsWith('.parquet'));
  if (partition.held > partition.erased) {
    const { query, values } = keptRowsQuery(partition, erasure);
    const file = join(folder, `part-${randomUUID()}.parquet`);
    await connection.run(
      `COPY (${query.text}) TO ${sqlText(`${file}.tmp`)} (FORMAT parquet)`,
      values as DuckDBValue[],
    );
    renameSync(`${file}.tmp`, file);
  }
  for (const name of readFrom) rmSync(join(folder, name), { force: true });
  if (existsSync(folder) && readdirSync(folder).length === 0) rmdirSync(folder);
}
