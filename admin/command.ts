import { type ParseArgsConfig, parseArgs } from 'node:util';
import { getMerchant } from '../shared/store/merchants.ts';

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

/** `--merchant`, which must name a merchant (else a failed command, exit 1, like a missing record). */
export async function requireMerchant(flags: Record<string, string | boolean | undefined>): Promise<string> {
  const merchantId = requireFlag(flags, 'merchant');
  if (!(await getMerchant(merchantId))) throw new CommandError(`no merchant ${merchantId}`);
  return merchantId;
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
