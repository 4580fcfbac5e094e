import { CsvError, parse } from 'csv-parse/sync';
import { DISPOSITION_CSV_COLUMNS } from '../contract/disposition-csv.ts';
import { ApiError, type ErrorDetail } from '../errors.ts';
import type { ManagementUseCase } from '../http/management-handler.ts';
import { describeIssues } from '../http/validation.ts';
import {
  dispositionRequestSchema,
  type ItemDisposition,
  itemDispositionSchema,
} from '../schemas/disposition.ts';
import { idText } from '../schemas/fields.ts';
import { auditPut } from '../store/audit.ts';
import { getReturn, type StoredReturn } from '../store/returns.ts';
import { transactWrite } from '../store/transact.ts';
import { recordDispositions, returnedLineOf } from '../use-cases/record-dispositions.ts';

/**
 * POST /v1/return/dispositions/upload: the dashboard's bulk form of the disposition endpoint, with
 * its schema and rules. Every row is checked first (schema, known return, item on the return, one
 * row per item); any failure records nothing and lists every failing cell. Then each return's rows
 * go through the endpoint's own use case, which records a disposition only when it differs from the
 * stored one, so uploading the same file again changes nothing.
 */
export const CSV_COLUMNS = DISPOSITION_CSV_COLUMNS;
type Column = (typeof CSV_COLUMNS)[number];
const REQUIRED_COLUMNS: readonly Column[] = CSV_COLUMNS.slice(0, 5);
/** Returns looked up or recorded at once: DynamoDB takes it, a Lambda's sockets too. */
const CONCURRENCY = 16;

interface Row {
  line: number;
  returnId: string;
  item: ItemDisposition;
}

export const uploadDispositions: ManagementUseCase<'dispositionsUpload'> = async ({ caller, body }) => {
  const { rows, errors } = parseRows(body);
  const byReturn = Map.groupBy(rows, (row) => row.returnId);
  const returns = new Map<string, StoredReturn | undefined>();
  await inBatches([...byReturn.keys()], async (returnId) => {
    returns.set(returnId, await getReturn(caller.merchantId, returnId));
  });
  for (const [returnId, returnRows] of byReturn)
    errors.push(...returnErrors(returns.get(returnId), returnRows));
  if (errors.length > 0) {
    errors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    const lines = new Set(errors.map((e) => e.line)).size;
    throw new ApiError('invalid_csv_rows', `${lines} row(s) of the file are invalid; nothing was recorded.`, {
      details: errors,
    });
  }

  let returnsChanged = 0;
  await inBatches([...byReturn], async ([returnId, returnRows]) => {
    const answer = await recordDispositions({
      endpoint: 'disposition',
      merchantId: caller.merchantId,
      body: { itemDispositions: returnRows.map((row) => row.item) },
      pathParameters: { 'return-id': returnId },
    });
    if (!answer.replayed) returnsChanged++;
  });
  await transactWrite([
    auditPut(caller.merchantId, {
      at: new Date().toISOString(),
      action: 'dispositions.uploaded',
      keyId: caller.keyId,
      keyName: caller.keyName,
      subject: `${rows.length} row${rows.length === 1 ? '' : 's'}`,
      detail: `${byReturn.size} returns, ${returnsChanged} changed`,
    }),
  ]);
  return { body: { rows: rows.length, returns: byReturn.size, returnsChanged } };
};

/** The file's rows as dispositions, and every problem found in its header and cells. */
function parseRows(text: string): { rows: Row[]; errors: ErrorDetail[] } {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, { columns: true, skip_empty_lines: true, trim: true, info: true });
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const line = (error as CsvError & { lines?: number }).lines;
    throw new ApiError('invalid_csv_rows', `The file is not valid CSV: ${error.message}`, {
      details: [{ ...(line ? { line } : {}), code: 'invalid_request', message: error.message }],
    });
  }
  const header = text
    .split(/\r?\n/, 1)[0]!
    .split(',')
    .map((c) => c.trim().replace(/^"|"$/g, ''));
  const headerErrors: ErrorDetail[] = [
    ...REQUIRED_COLUMNS.filter((c) => !header.includes(c)).map((column) => ({
      line: 1,
      column,
      code: 'invalid_request',
      message: `The header has no ${column} column.`,
    })),
    ...header
      .filter((c) => !(CSV_COLUMNS as readonly string[]).includes(c))
      .map((column) => ({
        line: 1,
        column,
        code: 'unknown_field',
        message: `${column} is not a column of the disposition file.`,
      })),
  ];
  if (headerErrors.length > 0) return { rows: [], errors: headerErrors };
  if (records.length === 0) {
    return { rows: [], errors: [{ line: 2, code: 'invalid_request', message: 'The file has no rows.' }] };
  }

  const rows: Row[] = [];
  const errors: ErrorDetail[] = [];
  for (const { record, info } of records) {
    const line = info.lines;
    const returnId = idText().safeParse(record.returnId ?? '');
    if (!returnId.success) {
      errors.push({ line, column: 'returnId', code: 'invalid_request', message: 'returnId is required.' });
    }
    const parsed = itemDispositionSchema.safeParse(itemOf(record), { reportInput: true });
    if (!parsed.success) {
      for (const issue of describeIssues(parsed.error.issues)) {
        errors.push({ line, column: columnOf(issue.field), code: issue.code, message: issue.message });
      }
    }
    if (returnId.success && parsed.success) rows.push({ line, returnId: returnId.data, item: parsed.data });
  }
  return { rows, errors };
}

/** A row's cells as the endpoint's item object; empty cells are absent fields. */
function itemOf(record: Record<string, string>): Record<string, unknown> {
  const cell = (column: Column) => (record[column] ? record[column] : undefined);
  const entries: [string, unknown][] = [
    ['identifierType', cell('identifierType')],
    ['identifier', cell('identifier')],
    ['returnedItemCondition', cell('returnedItemCondition')],
    ['dispositionOutcome', cell('dispositionOutcome')],
    ['returnMethod', cell('returnMethod') && { returnMethod: cell('returnMethod') }],
    ['refundMode', cell('refundMode') && { refundMode: cell('refundMode') }],
    ['warehouseIdentifier', cell('warehouseIdentifier')],
    ['storeIdentifier', cell('storeIdentifier')],
    [
      'images',
      cell('images')
        ?.split('|')
        .map((url) => url.trim()),
    ],
    ['inspectionNote', cell('inspectionNote')],
  ];
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

/** `returnMethod.returnMethod` -> `returnMethod`, `images[2]` -> `images`. */
const columnOf = (field: string) => field.split(/[.[]/, 1)[0] ?? field;

/** The endpoint's rules for one return's rows: the return exists, each row names one of its items once. */
function returnErrors(stored: StoredReturn | undefined, rows: readonly Row[]): ErrorDetail[] {
  if (!stored) {
    return rows.map(({ line }) => ({
      line,
      column: 'returnId',
      code: 'return_not_found',
      message: 'No return with this providerReturnId exists.',
    }));
  }
  const errors: ErrorDetail[] = [];
  const named = new Map<number, number>();
  for (const { line, item } of rows) {
    const returned = returnedLineOf(stored, item);
    if (returned < 0) {
      errors.push({
        line,
        column: 'identifier',
        code: 'item_not_on_return',
        message: 'No item of this return has this identifier.',
      });
      continue;
    }
    const earlier = named.get(returned);
    if (earlier !== undefined) {
      errors.push({
        line,
        column: 'identifier',
        code: 'unprocessable_entity',
        message: `Names the same returned item as line ${earlier}; one row per item.`,
      });
    }
    named.set(returned, line);
  }
  if (errors.length === 0) {
    const sizeCheck = dispositionRequestSchema.safeParse({ itemDispositions: rows.map((r) => r.item) });
    if (!sizeCheck.success) {
      errors.push({
        line: rows[0]!.line,
        column: 'returnId',
        code: 'unprocessable_entity',
        message: 'Too many rows for one return.',
      });
    }
  }
  return errors;
}

async function inBatches<T>(values: readonly T[], work: (value: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < values.length) await work(values[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, values.length) }, worker));
}
