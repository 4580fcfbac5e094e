/**
 * `node test/support/invoke-bundle.ts <index.mjs> <event.json>`: imports a built function the way the
 * Lambda runtime does, in a process of its own (so the environment it reads at import is the one the
 * caller set), invokes its handler once with the event and prints the result as JSON.
 */
import { readFileSync } from 'node:fs';
import { lambdaContext } from '../../local/api-gateway-event.ts';

const [index, eventFile] = process.argv.slice(2);
if (!index || !eventFile)
  throw new Error('usage: node test/support/invoke-bundle.ts <index.mjs> <event.json>');
const { handler } = (await import(index)) as {
  handler: (event: unknown, context: unknown) => Promise<unknown>;
};
const result = await handler(JSON.parse(readFileSync(eventFile, 'utf8')), lambdaContext('order'));
process.stdout.write(JSON.stringify(result));
