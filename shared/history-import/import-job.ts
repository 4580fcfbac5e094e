import type { S3Client } from '@aws-sdk/client-s3';
import * as z from 'zod';
import { logger } from '../observability.ts';
import { getMerchant } from '../store/merchants.ts';
import { type HistoryImportResult, ImportRefusedError, importHistory } from './import-history.ts';
import { s3HistoryObject } from './s3-source.ts';

/**
 * The import job (functions/history-import.ts, lib/import-job.ts): `admin import` for a file in
 * the imports bucket, invoked on demand with `{ merchantId, key }`. A merchant's files live under
 * its own prefix (`<merchantId>/...`), so a slip of the merchant id cannot import one merchant's
 * history into another's.
 */
export const importJobRequestSchema = z.strictObject({
  merchantId: z.string().min(1).max(64),
  /** The object's key in the imports bucket: `<merchantId>/<name>.ndjson`. */
  key: z.string().min(1).max(1024),
  dryRun: z.boolean().optional(),
  /** An earlier run's `resumeFrom` for the same object (a run that reached its time limit). */
  resumeFrom: z.number().int().min(0).optional(),
  concurrency: z.number().int().min(1).max(64).optional(),
});
export type ImportJobRequest = z.infer<typeof importJobRequestSchema>;

export interface ImportJobResult extends HistoryImportResult {
  merchantId: string;
  key: string;
  /** False when the run stopped before its time limit with events left: invoke again with resumeFrom. */
  complete: boolean;
}

export interface ImportJobContext {
  client: S3Client;
  bucket: string;
  /** False once no further event may start (the function's time is nearly up). */
  keepGoing: () => boolean;
}

export async function runImportJob(
  request: ImportJobRequest,
  context: ImportJobContext,
): Promise<ImportJobResult> {
  const { merchantId, key } = request;
  if (!key.startsWith(`${merchantId}/`)) {
    throw new ImportRefusedError(`key ${key} is not under the merchant's prefix ${merchantId}/`);
  }
  const merchant = await getMerchant(merchantId);
  if (!merchant) throw new ImportRefusedError(`no merchant ${merchantId}`);
  const result = await importHistory(s3HistoryObject(context.client, context.bucket, key), {
    merchant,
    keepGoing: context.keepGoing,
    onRejected: (problem) => logger.warn('history line rejected', { merchantId, key, ...problem }),
    ...(request.dryRun !== undefined ? { dryRun: request.dryRun } : {}),
    ...(request.resumeFrom !== undefined ? { resumeFrom: request.resumeFrom } : {}),
    ...(request.concurrency !== undefined ? { concurrency: request.concurrency } : {}),
  });
  return { merchantId, key, ...result, complete: result.resumeFrom === undefined };
}
