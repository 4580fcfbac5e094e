import type { LakeQuery, LakeQueryRunner, LakeQueryValue } from './lake-queries.ts';
import { boundValues, lakeQuery } from './lake-queries.ts';
import { LAKE_TABLE_NAMES, type LakeTableName } from './lake-tables.ts';

/**
 * An erased customer's rows taken out of the lake (docs/privacy.md): the partitions holding them are
 * found with one query (erasure_partitions.sql), and each is rewritten with its other rows
 * (erasure_kept_<table>.sql) in place of its files. DuckDB does it on the local lake
 * (local-lake-erasure.ts), Athena's UNLOAD and S3 in AWS (athena-lake-erasure.ts).
 */
export interface LakeErasure {
  merchantId: string;
  /**
   * What the rows are matched by: the customer's identities (`kind#digest`) and its erased records
   * (`event:<event key>`, `order:<id>`, `dispute:<id>`, `disposition:<return id>`, `review:<id>`,
   * `entry:<list entry id>`).
   */
  names: readonly string[];
}

export interface LakeErasureOutcome {
  rows: number;
  partitions: number;
}

/** Runs one pass over the lake: every partition holding a matching row now is rewritten without it. */
export type LakeEraser = (erasure: LakeErasure) => Promise<LakeErasureOutcome>;

interface ErasedPartition {
  table: LakeTableName;
  kind: string;
  day: string;
  /** The rows matched, of the rows the partition holds. */
  erased: number;
  held: number;
}

/** Between and around the names in their one bound string: a character no id or digest holds. */
const SEPARATOR = '\u001f';

/** The names as the queries bind them; a name holding the separator could match another's rows. */
const boundNames = (names: readonly string[]) =>
  `${SEPARATOR}${names.filter((name) => !name.includes(SEPARATOR)).join(SEPARATOR)}${SEPARATOR}`;

async function erasedPartitions(runner: LakeQueryRunner, erasure: LakeErasure): Promise<ErasedPartition[]> {
  if (erasure.names.length === 0) return [];
  const rows = await runner('erasure_partitions', {
    merchant_id: erasure.merchantId,
    names: boundNames(erasure.names),
  });
  return rows.map((row) => {
    const table = LAKE_TABLE_NAMES.find((name) => name === row.lake_table);
    if (!table) throw new Error(`erasure_partitions.sql named no lake table: ${String(row.lake_table)}`);
    return {
      table,
      kind: String(row.kind),
      day: String(row.day),
      erased: Number(row.erased),
      held: Number(row.held),
    };
  });
}

/** The query of a partition's rows to keep, with the values it binds. */
function keptRowsQuery(
  partition: ErasedPartition,
  erasure: LakeErasure,
): { query: LakeQuery; values: LakeQueryValue[] } {
  const query = lakeQuery(`erasure_kept_${partition.table}`);
  const values = boundValues(query, {
    merchant_id: erasure.merchantId,
    kind: partition.kind,
    day: partition.day,
    names: boundNames(erasure.names),
  });
  return { query, values };
}

/** Where a rewrite in AWS stages a partition's kept rows: outside every table's location. */
export const ERASURE_STAGING_PREFIX = '_erasure/';

/** A partition's folder in the lake's layout (`<table>/kind=/merchant_id=/day=/`), as Firehose writes it. */
const partitionPath = (partition: ErasedPartition, merchantId: string) =>
  `${partition.table}/kind=${partition.kind}/merchant_id=${merchantId}/day=${partition.day}/`;

/** Rewrites one partition without the erasure's rows, the way its engine does. */
export type PartitionRewrite = (rewrite: {
  query: LakeQuery;
  values: LakeQueryValue[];
  /** The partition's folder (`<table>/kind=/merchant_id=/day=/`). */
  path: string;
  keepsRows: boolean;
}) => Promise<void>;

/**
 * One pass of an engine: the partitions found with `runner`, each rewritten with its kept rows
 * (`keepsRows` false: nothing is left to write, only the files to delete).
 */
export async function erasePartitions(
  runner: LakeQueryRunner,
  erasure: LakeErasure,
  rewrite: PartitionRewrite,
): Promise<LakeErasureOutcome> {
  const partitions = await erasedPartitions(runner, erasure);
  for (const partition of partitions)
    await rewrite({
      ...keptRowsQuery(partition, erasure),
      path: partitionPath(partition, erasure.merchantId),
      keepsRows: partition.held > partition.erased,
    });
  return { rows: partitions.reduce((sum, p) => sum + p.erased, 0), partitions: partitions.length };
}
