import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
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

/**
 * A file's name carries the set of columns it holds (`part-c<tag>-<uuid>.parquet`), so the files of
 * one set are read together without reconciling schemas file by file: `union_by_name` reads every
 * footer on every query (over a year of daily partitions, 1.7 times the trade-off histogram's time).
 */
function columnSetTag(columns: readonly string[]): string {
  return createHash('sha256')
    .update([...columns].sort().join(','))
    .digest('hex')
    .slice(0, 12);
}

const TAGGED_FILE = /^part-c([0-9a-f]{12})-/;

/** The name a finished file takes in its partition folder. */
export async function lakeFileName(connection: DuckDBConnection, file: string): Promise<string> {
  const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlText(file)})`);
  const columns = described.getRowObjects().map((row) => String(row.column_name));
  return `part-c${columnSetTag(columns)}-${randomUUID()}.parquet`;
}

/** A table's Parquet files by the column set their names carry ('' for files named before the tag). */
function filesByColumnSet(tableDir: string): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  if (!existsSync(tableDir)) return groups;
  for (const path of readdirSync(tableDir, { recursive: true, encoding: 'utf8' })) {
    if (!path.endsWith('.parquet')) continue;
    const tag = TAGGED_FILE.exec(basename(path))?.[1] ?? '';
    const group = groups.get(tag) ?? [];
    if (group.length === 0) groups.set(tag, group);
    group.push(join(tableDir, path));
  }
  return groups;
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
 * (Re)defines the views: an empty table until the first file of a table is written. Each view lists
 * its files (a glob is expanded again on every query) and reads each column set's files together. A
 * column a file lacks (one added to the table since it was written) reads as null, as Athena reads
 * Parquet by column name.
 */
export async function defineLakeViews(connection: DuckDBConnection, dir: string): Promise<void> {
  for (const table of LAKE_TABLE_NAMES) {
    const columns = columnTypes(table);
    const nulls = (names: readonly (readonly [string, string])[]) =>
      names.map(([name, type]) => `CAST(NULL AS ${type}) AS "${name}"`).join(', ');
    const groups = filesByColumnSet(join(dir, table));
    if (groups.size === 0) {
      await connection.run(`CREATE OR REPLACE VIEW ${table} AS SELECT ${nulls(columns)} WHERE false`);
      continue;
    }
    const selects: string[] = [];
    for (const [tag, files] of groups) {
      const source = `read_parquet([${files.map(sqlText).join(', ')}], hive_partitioning = true,
        union_by_name = ${tag === '' ? 'true' : 'false'},
        hive_types = {'kind': VARCHAR, 'merchant_id': VARCHAR, 'day': VARCHAR})`;
      const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`);
      const present = new Set(described.getRowObjects().map((row) => String(row.column_name)));
      const select = columns
        .map(([name, type]) =>
          present.has(name) ? `CAST("${name}" AS ${type}) AS "${name}"` : nulls([[name, type]]),
        )
        .join(', ');
      selects.push(`SELECT ${select} FROM ${source}`);
    }
    await connection.run(`CREATE OR REPLACE VIEW ${table} AS ${selects.join(' UNION ALL ')}`);
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
          FILENAME_PATTERN 'part-c${columnSetTag(LAKE_TABLES[table].columns.map((c) => c.name))}-{uuid}')`,
      );
    } finally {
      rmSync(staged, { force: true });
    }
  }
  await defineLakeViews(connection, dir);
}
