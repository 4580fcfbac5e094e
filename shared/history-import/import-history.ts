import { plural } from '../plural.ts';
import { type ImportEvent, type LineProblem, parseImportFile } from './import-lines.ts';
import { type ImportOptions, type ImportSummary, runImport } from './run-import.ts';

/**
 * Where a history file comes from: a local file for `admin import`, an S3 object for the import job.
 * Everything after reading (validation, sorting, the import) is the same code whatever the source.
 */
export interface HistorySource {
  /** Names the file in messages: a path, or s3://bucket/key. */
  readonly name: string;
  /** The whole file as text; a source that cannot be read throws ImportRefusedError. */
  readText(): Promise<string>;
}

/** An import that writes nothing: the file cannot be read, or some of its lines are bad. */
export class ImportRefusedError extends Error {
  readonly problems: readonly LineProblem[];

  constructor(message: string, problems: readonly LineProblem[] = [], options?: ErrorOptions) {
    super(message, options);
    this.name = 'ImportRefusedError';
    this.problems = problems;
  }
}

export interface HistoryImportOptions extends ImportOptions {
  /** Validate only: nothing is written. */
  dryRun?: boolean;
  /**
   * Skip the first N events (in event-time order) that an earlier run handled (its `resumeFrom`).
   * Only a speed-up: without it a re-run finds those events present and skips them one by one.
   */
  resumeFrom?: number;
}

export interface HistoryImportResult extends ImportSummary {
  dryRun?: true;
  /** Present when the run ended early (`keepGoing`): pass it to the next run of the same file. */
  resumeFrom?: number;
}

/** Bad lines listed in the error before it says "and N more". */
const MAX_PROBLEMS_SHOWN = 20;

/**
 * Reads a history file, validates every line (one bad line and nothing is written), then imports
 * the events in event-time order. `events` counts the whole file; the other counts this run.
 */
export async function importHistory(
  source: HistorySource,
  options: HistoryImportOptions,
): Promise<HistoryImportResult> {
  const { events, problems } = parseImportFile(await source.readText());
  if (!options.merchant.accountUpdatesEnabled) problems.push(...accountLinesRefused(events));
  if (problems.length > 0) throw new ImportRefusedError(describeProblems(problems), problems);
  const resumeFrom = options.resumeFrom ?? 0;
  if (resumeFrom > events.length) {
    throw new ImportRefusedError(
      `resumeFrom ${resumeFrom} is past the end of ${source.name} (${events.length} events): is it the same file?`,
    );
  }
  if (options.dryRun) {
    return { events: events.length, imported: 0, alreadyPresent: 0, rejected: 0, seconds: 0, dryRun: true };
  }
  const { unfinished, ...summary } = await runImport(events.slice(resumeFrom), options);
  return {
    ...summary,
    events: events.length,
    ...(unfinished ? { resumeFrom: resumeFrom + unfinished.firstNotDone } : {}),
  };
}

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

function describeProblems(problems: readonly LineProblem[]): string {
  const sorted = [...problems].sort((a, b) => a.line - b.line);
  const shown = sorted
    .slice(0, MAX_PROBLEMS_SHOWN)
    .map((p) => `line ${p.line}${p.field ? ` (${p.field})` : ''}: ${p.code}: ${p.message}`);
  const more = sorted.length - shown.length;
  return [
    `${plural(sorted.length, 'bad line')}, nothing imported`,
    ...shown,
    ...(more > 0 ? [`and ${more} more`] : []),
  ].join('\n');
}
