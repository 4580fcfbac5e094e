import type { S3Client } from '@aws-sdk/client-s3';
import * as z from 'zod';
import { logger } from '../observability.ts';
import { recordImportStatus } from '../store/history-imports.ts';
import { getMerchant } from '../store/merchants.ts';
import {
  type ImportProgress,
  ImportRefusedError,
  importNotStarted,
  importProgressSchema,
  importSlice,
  refusal,
} from './import-history.ts';
import { s3HistoryObject } from './s3-source.ts';

/**
 * One slice of the import workflow (functions/history-import.ts, lib/import-job.ts): the state
 * machine passes `{ merchantId, key, progress }` from slice to slice until `progress.phase` is done
 * or refused. A merchant's files live under its own prefix (`<merchantId>/...`), so a slip of the
 * merchant id cannot import one merchant's history into another's.
 */
export const importSliceRequestSchema = z.strictObject({
  /** Absent when an upload starts the workflow: the key's first segment. */
  merchantId: z.string().min(1).max(64).optional(),
  /** The object's key in the imports bucket: `<merchantId>/<name>.ndjson`. */
  key: z
    .string()
    .max(1024)
    // Plain characters only: an upload event's key then reads the same encoded or not.
    .regex(
      /^[A-Za-z0-9_-]+\/[A-Za-z0-9._/-]+$/,
      'key must be <merchantId>/<name>.ndjson: letters, digits, ".", "_", "-", "/"',
    ),
  dryRun: z.boolean().optional(),
  concurrency: z.number().int().min(1).max(64).optional(),
  /** Where the import stands: absent on the first slice. */
  progress: importProgressSchema.optional(),
  /**
   * The state machine's execution bookkeeping (lib/import-job.ts): which run of the import this is
   * and how many slices it has run; each slice counts itself.
   */
  run: z
    .strictObject({
      root: z.string().max(64),
      generation: z.number().int().min(0),
      slices: z.number().int().min(0),
    })
    .optional(),
});
export type ImportSliceRequest = z.infer<typeof importSliceRequestSchema>;

export interface ImportSliceResult extends Omit<ImportSliceRequest, 'progress' | 'merchantId'> {
  merchantId: string;
  progress: ImportProgress;
  /** Why the import was refused (phase refused): its bad lines. */
  error?: string;
}

export interface ImportJobContext {
  client: S3Client;
  bucket: string;
  /** False once no further event may start (the function's time is nearly up). */
  keepGoing: () => boolean;
}

export async function runImportSlice(
  request: ImportSliceRequest,
  context: ImportJobContext,
): Promise<ImportSliceResult> {
  const { key, progress: _previous, run, ...rest } = request;
  const merchantId = request.merchantId ?? key.split('/')[0] ?? '';
  if (!key.startsWith(`${merchantId}/`)) {
    throw new ImportRefusedError(`key ${key} is not under the merchant's prefix ${merchantId}/`);
  }
  const merchant = await getMerchant(merchantId);
  if (!merchant) throw new ImportRefusedError(`no merchant ${merchantId}`);
  const previous = request.progress ?? importNotStarted();
  try {
    const progress = await importSlice(s3HistoryObject(context.client, context.bucket, key), previous, {
      merchant,
      keepGoing: context.keepGoing,
      onRejected: (problem) => logger.warn('history line rejected', { merchantId, key, ...problem }),
      ...(request.dryRun !== undefined ? { dryRun: request.dryRun } : {}),
      ...(request.concurrency !== undefined ? { concurrency: request.concurrency } : {}),
    });
    const error = progress.phase === 'refused' ? refusal(progress).message : undefined;
    await recordImportStatus(merchantId, key, progress, error);
    return {
      merchantId,
      key,
      ...rest,
      progress,
      ...(run ? { run: { ...run, slices: run.slices + 1 } } : {}),
      ...(error !== undefined ? { error } : {}),
    };
  } catch (error) {
    // The status says why the workflow stopped; the workflow's retries may still resume it.
    await recordImportStatus(merchantId, key, previous, (error as Error).message);
    throw error;
  }
}
