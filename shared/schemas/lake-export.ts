import * as z from 'zod';
import { dayRangeIssues, isoDay, isoTime, serviceId, text } from './fields.ts';

/**
 * A merchant's bulk export of its decided events and feedback over a range of days, from the lake
 * (docs/lake.md, Exports): one file set per kind, as the lake holds the rows (digests, never raw
 * personal data), each row at its latest revision.
 */
export const LAKE_EXPORT_KINDS = [
  'order',
  'return',
  'signup',
  'login',
  'account',
  'dispute',
  'disposition',
  'review',
] as const;
export type LakeExportKind = (typeof LAKE_EXPORT_KINDS)[number];
const LAKE_EXPORT_FORMATS = ['csv', 'parquet'] as const;
export type LakeExportFormat = (typeof LAKE_EXPORT_FORMATS)[number];

/** The widest range one export covers: a year of days, as the lake partitions them. */
const MAX_EXPORT_DAYS = 366;

export const lakeExportRequestSchema = z
  .strictObject({
    from: isoDay().meta({ description: 'First day (UTC), inclusive', examples: ['2026-10-01'] }),
    to: isoDay().meta({
      description: `Last day (UTC), inclusive: at most ${MAX_EXPORT_DAYS} days after \`from\``,
      examples: ['2026-10-31'],
    }),
    format: z
      .enum(LAKE_EXPORT_FORMATS)
      .meta({ description: 'One file set per kind, as CSV (with a header) or Parquet' }),
    kinds: z
      .array(z.enum(LAKE_EXPORT_KINDS))
      .min(1)
      .max(LAKE_EXPORT_KINDS.length)
      .refine((kinds) => new Set(kinds).size === kinds.length, { error: 'must not repeat a kind' })
      .meta({ uniqueItems: true })
      .optional()
      .meta({ description: 'The kinds to export; every kind when absent' }),
  })
  .superRefine(dayRangeIssues(MAX_EXPORT_DAYS));
export type LakeExportRequest = z.infer<typeof lakeExportRequestSchema>;

export const lakeExportStatusSchema = z
  .object({
    exportId: serviceId(),
    status: z.enum(['pending', 'done', 'failed']),
    from: isoDay(),
    to: isoDay(),
    format: z.enum(LAKE_EXPORT_FORMATS),
    kinds: z.array(z.enum(LAKE_EXPORT_KINDS)).max(LAKE_EXPORT_KINDS.length),
    createdAt: isoTime(),
    finishedAt: isoTime().optional(),
    files: z
      .array(
        z.object({
          kind: z.enum(LAKE_EXPORT_KINDS),
          url: z.url().max(4096).meta({ description: 'A download link, valid until `expiresAt`' }),
        }),
      )
      .max(1000)
      .optional()
      .meta({ description: 'Once done: the files of each kind (a kind with no rows may have none)' }),
    expiresAt: isoTime().optional().meta({ description: 'When the links, then the files, expire' }),
    reason: text().optional().meta({ description: 'Why a failed export stopped' }),
  })
  .meta({ id: 'LakeExport' });
export type LakeExportStatus = z.infer<typeof lakeExportStatusSchema>;
