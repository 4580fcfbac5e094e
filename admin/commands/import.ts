import { readFile } from 'node:fs/promises';
import {
  type ImportEvent,
  type LineProblem,
  parseImportFile,
} from '../../shared/history-import/import-lines.ts';
import { runImport } from '../../shared/history-import/run-import.ts';
import { getMerchant } from '../../shared/store/merchants.ts';
import { type AdminCommand, CommandError, positiveInteger, requireFlag } from '../command.ts';

/** Bad lines listed in the error before it says "and N more". */
const MAX_PROBLEMS_SHOWN = 20;

/**
 * `import --merchant ID --file events.ndjson [--dry-run]`: a new merchant's history, one event per
 * line, through the API's own use cases at each event's time. Every line is validated first; one
 * bad line and nothing is written. A progress bar goes to stderr when it is a terminal; the summary
 * is the one JSON object on stdout.
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
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        throw new CommandError(`cannot read ${file}: ${(error as Error).message}`);
      }
      const { events, problems } = parseImportFile(text);
      if (!merchant.accountUpdatesEnabled) problems.push(...accountLinesRefused(events));
      if (problems.length > 0) throw new CommandError(describeProblems(problems));
      if (flags['dry-run'] === true) {
        return {
          events: events.length,
          imported: 0,
          alreadyPresent: 0,
          rejected: 0,
          seconds: 0,
          dryRun: true,
        };
      }
      const progress = process.stderr.isTTY ? progressBar() : undefined;
      const summary = await runImport(events, {
        merchant,
        ...(concurrency !== undefined ? { concurrency } : {}),
        ...(progress ? { onProgress: progress.update } : {}),
        onRejected: (problem) => {
          progress?.clear();
          process.stderr.write(`${JSON.stringify({ rejected: problem })}\n`);
        },
      });
      progress?.clear();
      return summary;
    },
  },
];

function accountLinesRefused(events: readonly ImportEvent[]): LineProblem[] {
  return events
    .filter((event) => event.type === 'account')
    .map((event) => ({
      line: event.line,
      code: 'endpoint_not_enabled',
      message:
        'Account updates are not enabled for this merchant (merchant update --enable-account-updates).',
    }));
}

function describeProblems(problems: LineProblem[]): string {
  const sorted = [...problems].sort((a, b) => a.line - b.line);
  const shown = sorted
    .slice(0, MAX_PROBLEMS_SHOWN)
    .map((p) => `line ${p.line}${p.field ? ` (${p.field})` : ''}: ${p.code}: ${p.message}`);
  const more = sorted.length - shown.length;
  return [
    `${sorted.length} bad line(s), nothing imported`,
    ...shown,
    ...(more > 0 ? [`and ${more} more`] : []),
  ].join('\n');
}

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
