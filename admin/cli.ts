import { type AdminCommand, CommandError, parseFlags, UsageError } from './command.ts';
import { exportCommands } from './commands/exports.ts';
import { importCommands } from './commands/import.ts';
import { listCommands } from './commands/lists.ts';
import { merchantCommands } from './commands/merchants.ts';
import { modelCommands } from './commands/models.ts';
import { networkCommands } from './commands/network.ts';
import { privacyCommands } from './commands/privacy.ts';
import { reviewCommands } from './commands/reviews.ts';
import { settingsCommands } from './commands/settings.ts';
import { webhookCommands } from './commands/webhooks.ts';
import { workflowCommands } from './commands/workflows.ts';

/** Every admin command; later features add their command lists here. */
export const COMMANDS: readonly AdminCommand[] = [
  ...merchantCommands,
  ...workflowCommands,
  ...reviewCommands,
  ...modelCommands,
  ...importCommands,
  ...webhookCommands,
  ...settingsCommands,
  ...listCommands,
  ...networkCommands,
  ...privacyCommands,
  ...exportCommands,
];

export function usageText(): string {
  return ['Usage: npm run admin -- <command>', '', 'Commands:', ...COMMANDS.map((c) => `  ${c.usage}`)].join(
    '\n',
  );
}

/** Runs one command line; returns the process exit code. */
export async function runAdmin(argv: string[], out: (text: string) => void, err: (text: string) => void) {
  const command = COMMANDS.find((c) => c.words.every((word, i) => argv[i] === word));
  if (!command) {
    err(usageText());
    return 2;
  }
  try {
    const flags = parseFlags(command, argv.slice(command.words.length));
    out(JSON.stringify(await command.run(flags), null, 2));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${error.message}\nUsage: npm run admin -- ${command.usage}`);
      return 2;
    }
    if (error instanceof CommandError) {
      err(JSON.stringify({ error: error.message }));
      return 1;
    }
    err(`admin: ${(error as Error).name}: ${(error as Error).message}`);
    return 1;
  }
}
