import { historyFile } from '../../shared/history-import/file-source.ts';
import { ImportRefusedError, importHistory } from '../../shared/history-import/import-history.ts';
import { getMerchant } from '../../shared/store/merchants.ts';
import { type AdminCommand, CommandError, positiveInteger, requireFlag } from '../command.ts';

/**
 * `import --merchant ID --file events.ndjson [--dry-run]`: a new merchant's history, one event per
 * line, through the API's own use cases at each event's time. Every line is validated first; one
 * bad line and nothing is written. A progress bar goes to stderr when it is a terminal; the summary
 * is the one JSON object on stdout. The import job (functions/history-import.ts) runs the same
 * importHistory on a file in S3.
 */
export const importCommands: AdminCommand[] = [
  {
    words: ['import'],
    usage: 'import --merchant ID --file events.ndjson [--dry-run] [--concurrency 16]',
    options: {
      merchant: { type: 'string' },
      file: { type: 'string' },
      'dry-run': { type: 'boolean' },
      concurrency: { type: 'string' },
    },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const file = requireFlag(flags, 'file');
      const concurrency = positiveInteger(flags, 'concurrency');
      const merchant = await getMerchant(merchantId);
      if (!merchant) throw new CommandError(`no merchant ${merchantId}`);
      const progress = process.stderr.isTTY ? progressBar() : undefined;
      try {
        return await importHistory(historyFile(file), {
          merchant,
          dryRun: flags['dry-run'] === true,
          ...(concurrency !== undefined ? { concurrency } : {}),
          ...(progress ? { onProgress: progress.update } : {}),
          onRejected: (problem) => {
            progress?.clear();
            process.stderr.write(`${JSON.stringify({ rejected: problem })}\n`);
          },
        });
      } catch (error) {
        if (error instanceof ImportRefusedError) throw new CommandError(error.message);
        throw error;
      } finally {
        progress?.clear();
      }
    },
  },
];

/** A one-line bar redrawn in place on a terminal, at most ten times a second. */
function progressBar() {
  const width = 30;
  const started = performance.now();
  let drawnAt = 0;
  return {
    update: (done: number, total: number) => {
      const now = performance.now();
      if (done < total && now - drawnAt < 100) return;
      drawnAt = now;
      const filled = Math.round((done / Math.max(1, total)) * width);
      const rate = done / Math.max(0.001, (now - started) / 1000);
      process.stderr.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} events, ${rate.toFixed(0)}/s `,
      );
    },
    clear: () => process.stderr.write('\r\x1b[2K'),
  };
}
