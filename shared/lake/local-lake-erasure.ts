import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { erasePartitions, type LakeEraser } from './lake-erasure.ts';
import { duckDbRunner } from './lake-queries.ts';
import { defineLakeViews, lakeFileName, sqlText } from './local-lake.ts';

/**
 * The erasure on the local lake at `dir` (shared/lake/local-lake.ts): each partition found is
 * rewritten with DuckDB, its kept rows copied to a new file that takes its place once complete
 * (written as `.tmp`, which the views do not read, then renamed), then the files it was read from
 * deleted. A crash in between leaves rows twice, never none: queries keep each row's latest
 * revision, and the next pass rewrites what still matches.
 */
export function localLakeEraser(connection: DuckDBConnection, dir: string): LakeEraser {
  return async (erasure) => {
    const outcome = await erasePartitions(duckDbRunner(connection), erasure, async (rewrite) => {
      const folder = join(dir, rewrite.path);
      const readFrom = readdirSync(folder).filter((name) => name.endsWith('.parquet'));
      if (rewrite.keepsRows) {
        const staged = join(folder, `part-${randomUUID()}.parquet.tmp`);
        await connection.run(
          `COPY (${rewrite.query.text}) TO ${sqlText(staged)} (FORMAT parquet)`,
          rewrite.values as DuckDBValue[],
        );
        renameSync(staged, join(folder, await lakeFileName(connection, staged)));
      }
      for (const name of readFrom) rmSync(join(folder, name), { force: true });
      if (existsSync(folder) && readdirSync(folder).length === 0) rmdirSync(folder);
    });
    if (outcome.partitions > 0) await defineLakeViews(connection, dir);
    return outcome;
  };
}
