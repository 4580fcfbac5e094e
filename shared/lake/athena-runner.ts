import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  type QueryExecution,
  StartQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { boundValues, type LakeQueryRunner, type LakeQueryValue, lakeQuery } from './lake-queries.ts';

/**
 * The lake queries on Athena, in the environment's workgroup (which caps the bytes scanned and
 * encrypts the results): the same files DuckDB runs locally, their values passed as execution
 * parameters (Athena binds them as SQL literals: text quoted, numbers and booleans as they are).
 */
const athena = new AthenaClient({});
const POLL_MS = 1_000;

const literal = (value: LakeQueryValue) =>
  typeof value === 'string' ? `'${value.replaceAll("'", "''")}'` : String(value);

export interface AthenaSettings {
  workGroup: string;
  database: string;
}

export function athenaRunner(settings: AthenaSettings): LakeQueryRunner {
  return async (name, values) => {
    const query = lakeQuery(name);
    const execution = await runOnAthena(query.text, boundValues(query, values), settings, `${name}.sql`);
    return readResults(execution.QueryExecutionId!);
  };
}

/**
 * Runs one statement (a lake query, or a query wrapped to write its rows elsewhere) with its bound
 * values and waits for it: answers the finished execution, whose results are in the workgroup's
 * output location.
 */
export async function runOnAthena(
  text: string,
  values: readonly LakeQueryValue[],
  settings: AthenaSettings,
  label = 'Athena query',
): Promise<QueryExecution> {
  const { QueryExecutionId } = await athena.send(
    new StartQueryExecutionCommand({
      QueryString: text,
      WorkGroup: settings.workGroup,
      QueryExecutionContext: { Database: settings.database },
      ExecutionParameters: values.map(literal),
    }),
  );
  for (;;) {
    const { QueryExecution } = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId }));
    const state = QueryExecution?.Status?.State;
    if (state === 'SUCCEEDED') return QueryExecution!;
    if (state === 'FAILED' || state === 'CANCELLED')
      throw new Error(`${label} ${state}: ${QueryExecution?.Status?.StateChangeReason ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** Every page of a query's rows, typed by the result's column types (the header row skipped). */
async function readResults(queryExecutionId: string): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let token: string | undefined;
  let header = true;
  do {
    const page = await athena.send(
      new GetQueryResultsCommand({ QueryExecutionId: queryExecutionId, NextToken: token, MaxResults: 1000 }),
    );
    const columns = page.ResultSet?.ResultSetMetadata?.ColumnInfo ?? [];
    for (const row of page.ResultSet?.Rows ?? []) {
      if (header) {
        header = false;
        continue;
      }
      rows.push(
        Object.fromEntries(
          columns.map((column, i) => [
            column.Name,
            typed(column.Type ?? 'varchar', row.Data?.[i]?.VarCharValue),
          ]),
        ),
      );
    }
    token = page.NextToken;
  } while (token);
  return rows;
}

/** Athena answers text; arrays of digests come as `[a, b]` (digests hold no comma or bracket). */
function typed(type: string, text: string | undefined): unknown {
  if (text === undefined) return null;
  if (type === 'array') return text === '[]' ? [] : text.slice(1, -1).split(', ');
  if (['bigint', 'integer', 'double', 'float', 'real', 'decimal', 'smallint', 'tinyint'].includes(type))
    return Number(text);
  if (type === 'boolean') return text === 'true';
  return text;
}
