import { z } from 'zod';
import { LAKE_EXPORT_KINDS } from '../shared/schemas/lake-export.ts';
import { getLakeExport } from '../shared/store/lake-exports.ts';
import { recordLakeExportOutcome } from '../shared/use-cases/lake-exports.ts';

/**
 * The export state machine's last step: every kind's files, or the error that stopped it once its
 * retries were spent, recorded on the export with its audit entry (once, whatever retries repeat).
 */
const input = z.object({
  merchantId: z.string().min(1).max(64),
  exportId: z.string().min(1).max(64),
  files: z.array(z.object({ kind: z.enum(LAKE_EXPORT_KINDS), keys: z.array(z.string()) })).optional(),
  error: z.object({ Error: z.string().optional(), Cause: z.string().optional() }).optional(),
});

export async function handler(event: unknown) {
  const { merchantId, exportId, files, error } = input.parse(event);
  const record = await getLakeExport(merchantId, exportId);
  if (!record) throw new Error(`no export ${exportId} at ${merchantId}`);
  const result = files && !error ? { files } : { reason: error?.Cause ?? error?.Error ?? 'failed' };
  const outcome = await recordLakeExportOutcome(record, result, Date.now());
  return { status: outcome.status };
}
