import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { writeExport } from '../privacy/exports-bucket.ts';
import type { LakeExportFormat, LakeExportKind } from '../schemas/lake-export.ts';
import type { LakeExport } from '../store/lake-exports.ts';
import { boundValues, type LakeQuery, type LakeQueryValue, lakeQuery } from './lake-queries.ts';
import { LAKE_TABLES } from './lake-tables.ts';

/**
 * One kind of a bulk export (docs/lake.md, Exports): the kind's export query over the merchant's
 * partitions and the range, its rows written as files under the export's prefix in the exports
 * bucket. DuckDB here (`COPY ... TO`, then uploaded); Athena in AWS (shared/lake/athena-export.ts).
 */
export type LakeExportWriter = (record: LakeExport, kind: LakeExportKind) => Promise<string[]>;

const FEEDBACK_KINDS: readonly string[] = LAKE_TABLES.feedback.kinds;

/** The kind's query, with the values it binds. */
export function exportQuery(
  record: LakeExport,
  kind: LakeExportKind,
): { query: LakeQuery; values: LakeQueryValue[] } {
  const query = lakeQuery(FEEDBACK_KINDS.includes(kind) ? 'export_feedback' : 'export_decided_events');
  const values = boundValues(query, {
    merchant_id: record.merchantId,
    kind,
    from_day: record.from,
    to_day: record.to,
  });
  return { query, values };
}

/** Where an export's files go: under the merchant's prefix, which offboarding deletes. */
export const lakeExportPrefix = (record: Pick<LakeExport, 'merchantId' | 'exportId'>) =>
  `${record.merchantId}/exports/${record.exportId}/`;

export const EXPORT_CONTENT_TYPES: Record<LakeExportFormat, string> = {
  csv: 'text/csv',
  parquet: 'application/vnd.apache.parquet',
};

const DUCKDB_FORMATS: Record<LakeExportFormat, string> = {
  csv: 'FORMAT csv, HEADER',
  parquet: 'FORMAT parquet, COMPRESSION snappy',
};

/** A local lake's writer: one file per kind, even an empty one (a CSV of its header). */
export function duckDbExportWriter(connection: DuckDBConnection): LakeExportWriter {
  return async (record, kind) => {
    const { query, values } = exportQuery(record, kind);
    const staged = join(tmpdir(), `export-${randomUUID()}.${record.format}`);
    try {
      // The path is ours (no quote in it); DuckDB binds the query's values in COPY.
      await connection.run(
        `COPY (${query.text}) TO '${staged}' (${DUCKDB_FORMATS[record.format]})`,
        values as DuckDBValue[],
      );
      const key = `${lakeExportPrefix(record)}${kind}.${record.format}`;
      await writeExport(key, readFileSync(staged), EXPORT_CONTENT_TYPES[record.format]);
      return [key];
    } finally {
      rmSync(staged, { force: true });
    }
  };
}
