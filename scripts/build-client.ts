/**
 * Builds client/ (@abuse-decision/client): regenerates its types from openapi.json with
 * openapi-typescript, then compiles it with tsc into client/dist. Exits 1 when the committed types
 * were stale (they are rewritten: commit them) or the client does not compile against them.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const typesFile = join(root, 'client', 'src', 'openapi.ts');

const before = readFileSync(typesFile, 'utf8');
const generate = spawnSync(bin('openapi-typescript'), [join(root, 'openapi.json'), '--output', typesFile], {
  stdio: 'inherit',
});
if (generate.status !== 0) process.exit(1);
const stale = readFileSync(typesFile, 'utf8') !== before;
if (stale) console.error('client/src/openapi.ts was stale and has been regenerated: commit it');

const compile = spawnSync(bin('tsc'), ['-p', join(root, 'client', 'tsconfig.json')], { stdio: 'inherit' });
if (compile.status === 0) console.log('client built into client/dist');
process.exit(stale || compile.status !== 0 ? 1 : 0);
