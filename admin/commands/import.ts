import { historyFile } from '../../shared/history-import/file-source.ts';
import {
  type ImportProgress,
  ImportRefusedError,
  importHistory,
  importNotStarted,
  importProgressSchema,
} from '../../shared/history-import/import-history.ts';
import { getImportStatus, recordImportStatus } from '../../shared/store/history-imports.ts';
import { getMerchant } from '../../shared/store/merchants.ts';
import { type AdminCommand, CommandError, positiveInteger, requireFlag } from '../command.ts';

/**
 * `import --merchant ID --file events.ndjson [--dry-run]`: a new merchant's history, one event per
 * line in event-time order, through the API's own use cases at each event's time. The file is read
 * as a stream, in slices like the import workflow's (lib/import-job.ts), and where it stands is
 * recorded after each: every line is validated first (one bad line and nothing is written), and a
 * run stopped halfway resumes from the recorded position when run again. A progress bar goes to
 * stderr when it is a terminal; the summary is the one JSON object on stdout.
 *
 * `import status --merchant ID --file PATH|KEY`: where an import stands, this CLI's (a path) or the
 * workflow's (an S3 key in the imports bucket).
 */
export const importCommands: AdminCommand[] = [
  {
    words: ['import', 'status'],
    usage: 'import status --merchant ID --file PATH|KEY',
    options: { merchant: { type: 'string' }, file: { type: 'string' } },
    run: async (flags) => {
      const merchantId = requireFlag(flags, 'merchant');
      const file = requireFlag(flags, 'file');
      const status = await getImportStatus(merchantId, file);
      if (!status) throw new CommandError(`no import of ${file} for merchant ${merchantId}`);
      const { progress, ...about } = status;
      return { ...about, ...importProgressSchema.parse(progress) };
    },
  },
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
      const dryRun = flags['dry-run'] === true;
      const source = historyFile(file);
      const progress = process.stderr.isTTY ? progressBar() : undefined;
      try {
        const result = await importHistory(source, {
          merchant,
          dryRun,
          from: dryRun ? importNotStarted() : await unfinishedImport(merchantId, file, source),
          ...(concurrency !== undefined ? { concurrency } : {}),
          keepGoing: sliceTimer(),
          ...(progress ? { onRead: progress.update } : {}),
          onSlice: async (slice) => {
            if (!dryRun) await recordImportStatus(merchantId, file, slice);
          },
          onRejected: (problem) => {
            progress?.clear();
            process.stderr.write(`${JSON.stringify({ rejected: problem })}\n`);
          },
        });
        return { ...summaryOf(result), ...(dryRun ? { dryRun: true } : {}) };
      } catch (error) {
        if (error instanceof ImportRefusedError) throw new CommandError(error.message);
        throw error;
      } finally {
        progress?.clear();
      }
    },
  },
];

/** The summary printed at the end, whether or not a bar was shown. */
function summaryOf(progress: ImportProgress) {
  const { events, imported, alreadyPresent, rejected, slices, seconds } = progress;
  return { events, imported, alreadyPresent, rejected, slices, seconds };
}

/** How long a slice runs before its position is recorded: what a killed run loses at most. */
const SLICE_MS = 5_000;

function sliceTimer() {
  let started = performance.now();
  return () => {
    if (performance.now() - started < SLICE_MS) return true;
    started = performance.now();
    return false;
  };
}

/** The recorded import of this very file that has not finished, to resume; else a new one. */
async function unfinishedImport(
  merchantId: string,
  file: string,
  source: ReturnType<typeof historyFile>,
): Promise<ImportProgress> {
  const recorded = await getImportStatus(merchantId, file);
  const progress = recorded && importProgressSchema.parse(recorded.progress);
  if (!progress || (progress.phase !== 'validating' && progress.phase !== 'importing')) {
    return importNotStarted();
  }
  const now = await source.describe();
  if (now.bytes !== progress.bytes || now.version !== progress.version) return importNotStarted();
  return progress;
}

/** A one-line bar redrawn in place on a terminal, at most ten times a second: bytes read of the file. */
function progressBar() {
  const width = 30;
  let drawnAt = 0;
  return {
    update: (progress: ImportProgress, byte: number) => {
      const now = performance.now();
      if (now - drawnAt < 100) return;
      drawnAt = now;
      const share = byte / Math.max(1, progress.bytes);
      const filled = Math.round(share * width);
      const counts =
        progress.phase === 'validating'
          ? `${progress.events} events checked, ${progress.badLines} bad`
          : `${progress.imported} imported, ${progress.alreadyPresent} present, ${progress.rejected} rejected of ${progress.events}`;
      process.stderr.write(
        `\r${progress.phase} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(0)}% ${counts} `,
      );
    },
    clear: () => process.stderr.write('\r\x1b[2K'),
  };
}
