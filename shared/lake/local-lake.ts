import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import {
  LAKE_PARTITION_COLUMNS,
  LAKE_TABLE_NAMES,
  LAKE_TABLES,
  type LakeColumnType,
  type LakeRow,
  type LakeTableName,
} from './lake-tables.ts';

/**
 * The lake on local disk (`npm start`: `.data/lake/`; tests and the bench: a directory of their own),
 * in the layout of the lake bucket, read and written with DuckDB. Queries see each table as a view of
 * the same name over its Parquet files, as Athena sees the Glue table.
 */
const DUCKDB_TYPES: Record<LakeColumnType, string> = {
  string: 'VARCHAR',
  bigint: 'BIGINT',
  int: 'INTEGER',
  double: 'DOUBLE',
  'array<string>': 'VARCHAR[]',
};

/** A file path or a name as an SQL string literal (DuckDB binds no parameters in COPY or DDL). */
export const sqlText = (text: string) => `'${text.replaceAll("'", "''")}'`;

const columnTypes = (table: LakeTableName) =>
  [
    ...LAKE_TABLES[table].columns.map((c) => [c.name, DUCKDB_TYPES[c.type]] as const),
    ...LAKE_PARTITION_COLUMNS.map((name) => [name, 'VARCHAR'] as const),
  ] as const;

/** Whether a table directory holds any Parquet file yet. */
function hasFiles(dir: string): boolean {
  if (!existsSync(dir)) return false;
  return readdirSync(dir).some((name) => {
    const path = join(dir, name);
    return name.endsWith('.parquet') || (statSync(path).isDirectory() && hasFiles(path));
  });
}

/** A connection whose views `decided_events`, `feedback` and `list_changes` read the lake at `dir`. */
export async function openLocalLake(dir: string): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  // Files are written once (appends and erasures write new ones): their footers, read by every view
  // definition and query of a long-lived connection (the feed's, an eval timeline's), are cached.
  await connection.run('SET parquet_metadata_cache = true');
  await defineLakeViews(connection, dir);
  return connection;
}

/**
 * (Re)defines the views: an empty table until the first file of a table is written. A column no file
 * has yet (one added to the table since they were written) reads as null, as Athena reads Parquet by
 * column name.
 */
export async function defineLakeViews(connection: DuckDBConnection, dir: string): Promise<void> {
  for (const table of LAKE_TABLE_NAMES) {
    const tableDir = join(dir, table);
    const columns = columnTypes(table);
    const nulls = (names: readonly (readonly [string, string])[]) =>
      names.map(([name, type]) => `CAST(NULL AS ${type}) AS "${name}"`).join(', ');
    if (!hasFiles(tableDir)) {
      await connection.run(`CREATE OR REPLACE VIEW ${table} AS SELECT ${nulls(columns)} WHERE false`);
      continue;
    }
    const files = `read_parquet(${sqlText(join(tableDir, '**', '*.parquet'))}, hive_partitioning = true,
      union_by_name = true, hive_types = {'kind': VARCHAR, 'merchant_id': VARCHAR, 'day': VARCHAR})`;
    const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${files}`);
    const present = new Set(described.getRowObjects().map((row) => String(row.column_name)));
    const select = columns
      .map(([name, type]) =>
        present.has(name) ? `CAST("${name}" AS ${type}) AS "${name}"` : nulls([[name, type]]),
      )
      .join(', ');
    await connection.run(`CREATE OR REPLACE VIEW ${table} AS SELECT ${select} FROM ${files}`);
  }
}

/**
 * Appends rows to the lake at `dir`: one new Parquet file per table and partition they touch
 * (files are never rewritten here; queries keep each row's latest revision).
 */
export async function appendLakeRows(
  connection: DuckDBConnection,
  dir: string,
  rows: readonly LakeRow[],
): Promise<void> {
  for (const table of LAKE_TABLE_NAMES) {
    const ofTable = rows.filter((row) => row.table === table);
    if (ofTable.length === 0) continue;
    const staged = join(tmpdir(), `lake-${randomUUID()}.ndjson`);
    writeFileSync(
      staged,
      ofTable
        .map((row) =>
          JSON.stringify({ ...row.values, kind: row.kind, merchant_id: row.merchantId, day: row.day }),
        )
        .join('\n'),
    );
    try {
      mkdirSync(join(dir, table), { recursive: true });
      const columns = columnTypes(table);
      await connection.run(
        `COPY (SELECT * FROM read_json(${sqlText(staged)}, format = 'newline_delimited',
            columns = {${columns.map(([name, type]) => `'${name}': '${type}'`).join(', ')}}))
         TO ${sqlText(join(dir, table))}
         (FORMAT parquet, PARTITION_BY (${LAKE_PARTITION_COLUMNS.join(', ')}), APPEND,
          FILENAME_PATTERN 'part-{uuid}')`,
      );
    } finally {
      rmSync(staged, { force: true });
    }
  }
  await defineLakeViews(connection, dir);
}
