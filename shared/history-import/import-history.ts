import * as z from 'zod';
import { ApiError } from '../errors.ts';
import { plural } from '../plural.ts';
import { type FileLine, fileLines } from './file-lines.ts';
import { HistoryLineReader, type ImportEvent, type LineProblem, problemOf } from './import-lines.ts';
import { type ImportOptions, READ_AHEAD_MAX, runImport } from './run-import.ts';

/**
 * Where a history file comes from: a local file for `admin import`, an S3 object for the import
 * workflow. Everything after reading (validation, the import) is the same code whatever the source.
 */
export interface HistorySource {
  /** Names the file in messages: a path, or s3://bucket/key. */
  readonly name: string;
  /** Its size, and a version that changes when its content does; throws ImportRefusedError when unreadable. */
  describe(): Promise<{ bytes: number; version: string }>;
  /** Its bytes from `fromByte` to the end, as a stream. */
  read(fromByte: number): Promise<AsyncIterable<Uint8Array>>;
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

/** Bad lines kept (and listed in the error) before it says "and N more". */
const MAX_PROBLEMS_SHOWN = 20;

const positionSchema = z.strictObject({
  byte: z.number().int().min(0),
  line: z.number().int().min(1),
});

/**
 * Where an import stands, recorded after every slice (the workflow's state, the status item): every
 * line is validated first (one bad line and nothing is written), then imported. A slice reads from
 * `from` (the first line at some time, so identical lines get the same seeds again) and starts
 * events from line `resumeLine` on (but those in `doneAhead`): every line before it was handled.
 */
export const importProgressSchema = z.strictObject({
  phase: z.enum(['validating', 'importing', 'done', 'refused']),
  /** The file's size and version when validated: a changed file is refused, not half-imported. */
  bytes: z.number().int().min(0),
  version: z.string().max(256),
  from: positionSchema,
  resumeLine: z.number().int().min(1),
  /** Lines after `resumeLine` already handled (in flight when the slice before stopped): at most its window. */
  doneAhead: z.array(z.number().int().min(1)).max(2 * READ_AHEAD_MAX),
  /** Events in the file (once validated). */
  events: z.number().int().min(0),
  /** Events handled so far: imported, already present or rejected (a resumed slice may count a few twice as present). */
  imported: z.number().int().min(0),
  alreadyPresent: z.number().int().min(0),
  rejected: z.number().int().min(0),
  badLines: z.number().int().min(0),
  problems: z.array(
    z.strictObject({
      line: z.number().int(),
      code: z.string(),
      field: z.string().optional(),
      message: z.string(),
    }),
  ),
  slices: z.number().int().min(0),
  seconds: z.number().min(0),
});
export type ImportProgress = z.infer<typeof importProgressSchema>;

export const importNotStarted = (): ImportProgress => ({
  phase: 'validating',
  bytes: 0,
  version: '',
  from: { byte: 0, line: 1 },
  resumeLine: 1,
  doneAhead: [],
  events: 0,
  imported: 0,
  alreadyPresent: 0,
  rejected: 0,
  badLines: 0,
  problems: [],
  slices: 0,
  seconds: 0,
});

export interface HistoryImportOptions extends ImportOptions {
  /** Validate only: nothing is written. */
  dryRun?: boolean;
  /** Bytes read so far in this slice's phase, as it reads. */
  onRead?: (progress: ImportProgress, byte: number) => void;
}

/**
 * One slice of an import: from where `progress` stands until the file's end or `keepGoing` says
 * stop, then where it stands now. A slice always makes progress: its first line is always read.
 */
export async function importSlice(
  source: HistorySource,
  progress: ImportProgress,
  options: HistoryImportOptions,
): Promise<ImportProgress> {
  if (progress.phase === 'done' || progress.phase === 'refused') return progress;
  const started = performance.now();
  const file = await source.describe();
  if (progress.slices > 0 && (file.bytes !== progress.bytes || file.version !== progress.version)) {
    throw new ImportRefusedError(`${source.name} changed while it was being imported: upload it again`);
  }
  const current = { ...progress, bytes: file.bytes, version: file.version, slices: progress.slices + 1 };
  const next =
    progress.phase === 'validating'
      ? await validateSlice(source, current, options)
      : await importEventsSlice(source, current, options);
  return { ...next, seconds: round(progress.seconds + (performance.now() - started) / 1000) };
}

/**
 * An import run to the end in slices of at most `sliceMs` (the admin CLI): after each, `onSlice`
 * records where it stands. Bad lines throw ImportRefusedError, and nothing is written.
 */
export async function importHistory(
  source: HistorySource,
  options: HistoryImportOptions & {
    from?: ImportProgress;
    onSlice?: (progress: ImportProgress) => Promise<void>;
  },
): Promise<ImportProgress> {
  let progress = options.from ?? importNotStarted();
  while (progress.phase === 'validating' || progress.phase === 'importing') {
    progress = await importSlice(source, progress, options);
    await options.onSlice?.(progress);
  }
  if (progress.phase === 'refused') throw refusal(progress);
  return progress;
}

/** The error a refused import ends with: its bad lines, the first of them listed. */
export function refusal(progress: ImportProgress): ImportRefusedError {
  const shown = progress.problems.map(
    (p) => `line ${p.line}${p.field ? ` (${p.field})` : ''}: ${p.code}: ${p.message}`,
  );
  const more = progress.badLines - shown.length;
  return new ImportRefusedError(
    [
      `${plural(progress.badLines, 'bad line')}, nothing imported`,
      ...shown,
      ...(more > 0 ? [`and ${more} more`] : []),
    ].join('\n'),
    progress.problems,
  );
}

async function validateSlice(
  source: HistorySource,
  progress: ImportProgress,
  options: HistoryImportOptions,
): Promise<ImportProgress> {
  const next = { ...progress, problems: [...progress.problems] };
  const reader = new HistoryLineReader(progress.from, { touches: false });
  const lines = await linesFrom(source, progress);
  let readAny = false;
  for await (const raw of lines) {
    if (readAny && options.keepGoing && !options.keepGoing()) {
      return { ...next, from: reader.runStart, resumeLine: raw.line, doneAhead: [] };
    }
    readAny = true;
    const repeat = raw.line < progress.resumeLine;
    try {
      const event = reader.read(raw);
      if (event && !repeat) {
        next.events++;
        if (event.type === 'account' && !options.merchant.accountUpdatesEnabled) {
          throw new ApiError(
            'endpoint_not_enabled',
            'Account updates are not enabled for this merchant (merchant update --enable-account-updates).',
          );
        }
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (repeat) continue;
      next.badLines++;
      if (next.problems.length < MAX_PROBLEMS_SHOWN) next.problems.push(problemOf(raw.line, error));
    }
    options.onRead?.(next, raw.next);
  }
  if (next.badLines > 0) return { ...next, phase: 'refused' };
  const start = { from: { byte: 0, line: 1 }, resumeLine: 1, doneAhead: [] };
  return { ...next, ...start, phase: options.dryRun ? 'done' : 'importing' };
}

async function importEventsSlice(
  source: HistorySource,
  progress: ImportProgress,
  options: HistoryImportOptions,
): Promise<ImportProgress> {
  const reader = new HistoryLineReader(progress.from);
  const lines = await linesFrom(source, progress);
  const doneAhead = new Set(progress.doneAhead);
  let stoppedAt: Pick<ImportProgress, 'from' | 'resumeLine' | 'doneAhead'> | undefined;
  let lastRead: FileLine | undefined;
  async function* events(): AsyncGenerator<ImportEvent> {
    for await (const raw of lines) {
      if (lastRead && options.keepGoing && !options.keepGoing()) {
        const ahead = progress.doneAhead.filter((line) => line >= raw.line);
        stoppedAt = { from: reader.runStart, resumeLine: raw.line, doneAhead: ahead };
        return;
      }
      lastRead = raw;
      let event: ImportEvent | undefined;
      try {
        event = reader.read(raw);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        throw new ImportRefusedError(
          `${source.name} changed while it was being imported: line ${raw.line} is bad now`,
        );
      }
      options.onRead?.(progress, raw.next);
      if (event && raw.line >= progress.resumeLine && !doneAhead.has(raw.line)) yield event;
    }
  }
  const summary = await runImport(events(), options);
  const counts = {
    imported: progress.imported + summary.imported,
    alreadyPresent: progress.alreadyPresent + summary.alreadyPresent,
    rejected: progress.rejected + summary.rejected,
  };
  const { firstNotDone, doneAfter = [] } = summary;
  if (firstNotDone) {
    // Lines the slice before had done ahead, not reached by this one, stay done ahead.
    const ahead = [...doneAhead].filter((line) => line > firstNotDone.line);
    return {
      ...progress,
      ...counts,
      from: firstNotDone.readFrom,
      resumeLine: firstNotDone.line,
      doneAhead: [...new Set([...ahead, ...doneAfter])].sort((a, b) => a - b),
    };
  }
  if (stoppedAt) return { ...progress, ...counts, ...stoppedAt };
  return { ...progress, ...counts, phase: 'done', doneAhead: [] };
}

async function linesFrom(source: HistorySource, progress: ImportProgress): Promise<AsyncIterable<FileLine>> {
  // Nothing is left to read: S3 refuses a range that starts at the end.
  if (progress.from.byte >= progress.bytes) return fileLines(nothing(), progress.from);
  return fileLines(await source.read(progress.from.byte), progress.from);
}

async function* nothing(): AsyncGenerator<Uint8Array> {}

const round = (seconds: number) => Number(seconds.toFixed(2));
