import { type ParseArgsConfig, parseArgs } from 'node:util';
import { ApiError } from '../shared/errors.ts';
import { validate } from '../shared/http/validation.ts';
import { MAX_NAME_LENGTH } from '../shared/schemas/fields.ts';

/**
 * One admin command: its words (e.g. ["key", "create"]), its flags, and what it does. Each command
 * prints one JSON object. A usage problem is a UsageError (exit 2); a missing record is a
 * CommandError (exit 1).
 */
export interface AdminCommand {
  words: readonly string[];
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run: (flags: Record<string, string | boolean | undefined>) => Promise<unknown>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}

export function parseFlags(
  command: AdminCommand,
  args: string[],
): Record<string, string | boolean | undefined> {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: command.options,
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    return values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError((error as Error).message);
  }
}

export function requireFlag(flags: Record<string, string | boolean | undefined>, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** A name the console shows (a merchant's, a key holder's): at most MAX_NAME_LENGTH characters. */
export function boundedName(value: string, flag: string): string {
  if (value.length > MAX_NAME_LENGTH) {
    throw new UsageError(`--${flag} must be at most ${MAX_NAME_LENGTH} characters`);
  }
  return value;
}

export function positiveInteger(
  flags: Record<string, string | boolean | undefined>,
  name: string,
): number | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(parsed) || parsed <= 0) {
    throw new UsageError(`--${name} must be a positive whole number`);
  }
  return parsed;
}

/** Input checked by the management API's own schema: what it refuses is a usage error here. */
export function checked<T>(schema: Parameters<typeof validate<T>>[0], input: unknown): T {
  try {
    return validate(schema, input);
  } catch (error) {
    // Validation messages name their field already.
    if (error instanceof ApiError) throw new UsageError(error.message);
    throw error;
  }
}
