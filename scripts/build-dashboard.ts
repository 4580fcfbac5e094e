/**
 * Builds the merchant console (dashboard/) into dashboard/dist: type-checks it (Vite does not), then
 * bundles it with Vite. `npm start`, `npm test` and `npm run synth` run it, so a newcomer never
 * builds by hand; it skips the work when dist is newer than every source (`--force` rebuilds).
 * Both tools run on this Node (the project's), whatever `node` the PATH has.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const dashboard = join(root, 'dashboard');
const built = join(dashboard, 'dist', 'index.html');
/** What the bundle is made of: the console, the typed client, the shared constant, the configs. */
const SOURCES = [
  join(dashboard, 'src'),
  join(dashboard, 'index.html'),
  join(dashboard, 'vite.config.ts'),
  join(dashboard, 'tsconfig.json'),
  join(root, 'client', 'src'),
  join(root, 'shared', 'contract', 'disposition-csv.ts'),
];

function newestChange(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

const upToDate =
  !process.argv.includes('--force') &&
  existsSync(built) &&
  statSync(built).mtimeMs > Math.max(...SOURCES.map(newestChange));
if (upToDate) {
  console.log('dashboard/dist is up to date');
  process.exit(0);
}

const run = (script: string, args: string[]) =>
  spawnSync(process.execPath, [join(root, 'node_modules', script), ...args], {
    stdio: 'inherit',
    cwd: dashboard,
  });
if (run('typescript/bin/tsc', ['-p', join(dashboard, 'tsconfig.json')]).status !== 0) process.exit(1);
const build = run('vite/bin/vite.js', ['build', '--config', join(dashboard, 'vite.config.ts')]);
if (build.status === 0) console.log('dashboard built into dashboard/dist');
process.exit(build.status ?? 1);
