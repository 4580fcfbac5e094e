import { readFileSync } from 'node:fs';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';

/**
 * The lake's queries, one per file in `queries/` (named by what it computes), written once in the
 * SQL both engines read: DuckDB locally and in tests, Athena (Trino) in AWS; tests check each one
 * parses as Trino. Values are bound, never spliced: each file declares its `?` placeholders in order
 * (`-- parameters: a, b, a`), and a run names its values.
 */
export const LAKE_QUERY_NAMES = [
  'backtest_events',
  'erasure_kept_decided_events',
  'erasure_kept_feedback',
  'erasure_kept_list_changes',
  'erasure_partitions',
  'event_count',
  'export_decided_events',
  'export_feedback',
  'latest_event',
  'overview_rollup',
  'tradeoff_histogram',
  'training_events',
  'training_feedback',
  'training_sources',
] as const;
export type LakeQueryName = (typeof LAKE_QUERY_NAMES)[number];
export type LakeQueryValue = string | number | boolean;

export interface LakeQuery {
  name: LakeQueryName;
  text: string;
  /** The placeholders' names, in the order of the `?` they bind. */
  parameters: readonly string[];
}

export function lakeQuery(name: LakeQueryName): LakeQuery {
  const text = readFileSync(new URL(`./queries/${name}.sql`, import.meta.url), 'utf8');
  const declared = /^-- parameters: (.*)$/m.exec(text)?.[1];
  const parameters = declared ? declared.split(',').map((p) => p.trim()) : [];
  const placeholders = text.replace(/^--.*$/gm, '').split('?').length - 1;
  if (placeholders !== parameters.length)
    throw new Error(
      `${name}.sql has ${placeholders} placeholders but declares ${parameters.length} parameters`,
    );
  return { name, text, parameters };
}

/** The positional values of a query, from its named ones. */
export function boundValues(
  query: LakeQuery,
  values: Readonly<Record<string, LakeQueryValue>>,
): LakeQueryValue[] {
  return query.parameters.map((name) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${query.name}.sql needs a value for ${name}`);
    return value;
  });
}

/** How a caller runs a lake query: DuckDB here, Athena in AWS; rows come back as plain JSON values. */
export type LakeQueryRunner = (
  name: LakeQueryName,
  values: Readonly<Record<string, LakeQueryValue>>,
) => Promise<Record<string, unknown>[]>;

/** A runner over a local lake connection (shared/lake/local-lake.ts). */
export function duckDbRunner(connection: DuckDBConnection): LakeQueryRunner {
  return async (name, values) => {
    const query = lakeQuery(name);
    const reader = await connection.runAndReadAll(query.text, boundValues(query, values) as DuckDBValue[]);
    // Counts and epoch milliseconds are BIGINT: well inside a double's exact integers.
    return reader
      .getRowObjectsJS()
      .map((row) =>
        Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])),
      );
  };
}
