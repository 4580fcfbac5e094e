import { z } from 'zod';
import { athenaExportWriter } from '../shared/lake/athena-export.ts';
import { LAKE_EXPORT_KINDS } from '../shared/schemas/lake-export.ts';
import { exportKind } from '../shared/use-cases/lake-exports.ts';

/** The export state machine's step per kind: the kind's files from the lake (Athena). */
const input = z.object({
  merchantId: z.string().min(1).max(64),
  exportId: z.string().min(1).max(64),
  kind: z.enum(LAKE_EXPORT_KINDS),
});

const write = athenaExportWriter({
  workGroup: String(process.env.LAKE_WORKGROUP),
  database: String(process.env.LAKE_DATABASE),
});

export async function handler(event: unknown) {
  const { merchantId, exportId, kind } = input.parse(event);
  return exportKind(merchantId, exportId, kind, write);
}
