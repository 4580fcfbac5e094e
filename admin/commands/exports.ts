import { caughtUpLakeConnection } from '../../local/lake-runner.ts';
import { readRuntimeConfig } from '../../shared/config.ts';
import { duckDbExportWriter } from '../../shared/lake/lake-export.ts';
import { lakeExportRequestSchema } from '../../shared/schemas/lake-export.ts';
import { getLakeExport } from '../../shared/store/lake-exports.ts';
import { lakeExportView, requestLakeExport, runLakeExport } from '../../shared/use-cases/lake-exports.ts';
import { type AdminCommand, CommandError, checked, requireFlag } from '../command.ts';
import { adminOperator, requireMerchant } from '../targets.ts';

/**
 * Bulk exports (docs/lake.md, Exports): asked as POST /v1/exports asks, audited with the operator's
 * name. Locally it runs at once on the local lake, caught up with the table; against AWS the
 * recorded export starts the export state machine, and `export show` follows it.
 */
export const exportCommands: AdminCommand[] = [
  // First: `export` alone would match `export show` too.
  {
    words: ['export', 'show'],
    usage: 'export show --merchant ID --export exp_...',
    options: { merchant: { type: 'string' }, export: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const exportId = requireFlag(flags, 'export');
      const record = await getLakeExport(merchantId, exportId);
      if (!record) throw new CommandError(`no export ${exportId} at ${merchantId}`);
      return lakeExportView(record, Date.now());
    },
  },
  {
    words: ['export'],
    usage:
      'export --merchant ID --from 2026-10-01 --to 2026-10-31 --format csv|parquet [--kinds order,dispute]',
    options: {
      merchant: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      format: { type: 'string' },
      kinds: { type: 'string' },
    },
    run: async (flags) => {
      const merchantId = await requireMerchant(flags);
      const request = checked(lakeExportRequestSchema, {
        from: requireFlag(flags, 'from'),
        to: requireFlag(flags, 'to'),
        format: requireFlag(flags, 'format'),
        ...(typeof flags.kinds === 'string' ? { kinds: flags.kinds.split(',').map((k) => k.trim()) } : {}),
      });
      const record = await requestLakeExport(merchantId, adminOperator(), request, Date.now());
      if (!readRuntimeConfig().dynamoDbEndpoint) return lakeExportView(record, Date.now());
      const lake = await caughtUpLakeConnection();
      try {
        await runLakeExport(record, duckDbExportWriter(lake));
      } finally {
        lake.closeSync();
      }
      const done = await getLakeExport(merchantId, record.exportId);
      return lakeExportView(done ?? record, Date.now());
    },
  },
];
