import { CsvError, parse } from 'csv-parse/sync';
import { forEachConcurrently } from '../concurrency.ts';
import { DISPOSITION_CSV_COLUMNS } from '../contract/disposition-csv.ts';
import { ApiError, type ErrorDetail, notFound } from '../errors.ts';
import type { ManagementUseCase } from '../http/management-handler.ts';
import { describeIssues } from '../http/validation.ts';
import { newUploadId } from '../ids.ts';
import { plural } from '../plural.ts';
import { MAX_UPLOAD_FAILURES_LISTED } from '../schemas/console.ts';
import {
  dispositionRequestSchema,
  type ItemDisposition,
  itemDispositionSchema,
} from '../schemas/disposition.ts';
import { idText } from '../schemas/fields.ts';
import { auditPut } from '../store/audit.ts';
import { batchGetItems } from '../store/batch-get.ts';
import { chunkReturns, createUpload, getUpload } from '../store/disposition-uploads.ts';
import { keys } from '../store/keys.ts';
import type { ReturnRecord } from '../store/returns.ts';
import { returnedLineOf } from '../use-cases/record-dispositions.ts';

/**
 * POST /v1/return/dispositions/upload: the dashboard's bulk form of the disposition endpoint, with
 * its schema and rules. Every row is checked first (schema, known return, item on the return, one
 * row per item); any failure records nothing and lists every failing cell. A valid file becomes a
 * job: its rows, grouped per return, are stored with the upload item (and its audit entry), and
 * the answer is 202 at once; the upload worker (shared/use-cases/record-upload.ts) then sends each
 * return through the endpoint's own use case, which records a disposition only when it differs
 * from the stored one, so uploading the same file again changes nothing.
 */
export const CSV_COLUMNS = DISPOSITION_CSV_COLUMNS;
type Column = (typeof CSV_COLUMNS)[number];
const REQUIRED_COLUMNS: readonly Column[] = CSV_COLUMNS.slice(0, 5);
/** BatchGetItem calls in flight while the file's returns are looked up (100 returns each). */
const LOOKUP_CONCURRENCY = 8;

interface Row {
  line: number;
  returnId: string;
  item: ItemDisposition;
}

export const uploadDispositions: ManagementUseCase<'dispositionsUpload'> = async ({ caller, body }) => {
  const { rows, errors } = parseRows(body);
  const byReturn = Map.groupBy(rows, (row) => row.returnId);
  const returns = await storedReturns(caller.merchantId, [...byReturn.keys()]);
  for (const [returnId, returnRows] of byReturn)
    errors.push(...returnErrors(returns.get(returnId), returnRows));
  if (errors.length > 0) {
    errors.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    const lines = new Set(errors.map((e) => e.line)).size;
    throw new ApiError(
      'invalid_csv_rows',
      `${plural(lines, 'row')} of the file ${lines === 1 ? 'is' : 'are'} invalid; nothing was recorded.`,
      {
        details: errors,
      },
    );
  }

  const uploadId = newUploadId();
  const now = Date.now();
  const chunks = chunkReturns(
    [...byReturn].map(([returnId, returnRows]) => ({
      returnId,
      itemDispositions: returnRows.map((row) => row.item),
    })),
  );
  await createUpload(
    { merchantId: caller.merchantId, uploadId, rows: rows.length, returns: byReturn.size },
    chunks,
    auditPut(caller.merchantId, {
      at: new Date(now).toISOString(),
      action: 'dispositions.uploaded',
      keyId: caller.keyId,
      keyName: caller.keyName,
      subject: plural(rows.length, 'row'),
      detail: `upload ${uploadId}, ${plural(byReturn.size, 'return')}`,
    }),
    now,
  );
  return {
    body: { uploadId, status: 'recording', rows: rows.length, returns: byReturn.size },
    headers: { Location: `/v1/return/dispositions/uploads/${uploadId}` },
  };
};

/** GET /v1/return/dispositions/uploads/{upload-id}: the job's status and progress. */
export const showUpload: ManagementUseCase<'dispositionsUploadShow'> = async ({ caller, pathParameters }) => {
  const upload = await getUpload(caller.merchantId, pathParameters['upload-id'] ?? '');
  if (!upload) throw notFound('No upload with this id.');
  const {
    merchantId: _merchantId,
    chunks: _chunks,
    chunksRecorded: _done,
    attempts: _attempts,
    failures,
    ...body
  } = upload;
  return { body: { ...body, failures: failures.slice(0, MAX_UPLOAD_FAILURES_LISTED) } };
};

/** The file's returns as stored, by id (absent when unknown), read 100 at a time. */
async function storedReturns(merchantId: string, returnIds: readonly string[]) {
  const found = new Map<string, ReturnRecord>();
  const slices = Array.from({ length: Math.ceil(returnIds.length / 100) }, (_, i) =>
    returnIds.slice(i * 100, i * 100 + 100),
  );
  await forEachConcurrently(slices, LOOKUP_CONCURRENCY, async (slice) => {
    const items = await batchGetItems(slice.map((returnId) => keys.return(merchantId, returnId)));
    for (const item of items.values()) {
      const stored = item as unknown as ReturnRecord;
      found.set(stored.providerReturnId, stored);
    }
  });
  return found;
}

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
function returnErrors(stored: ReturnRecord | undefined, rows: readonly Row[]): ErrorDetail[] {
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
