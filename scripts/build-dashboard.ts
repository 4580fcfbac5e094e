/**
 * Builds the merchant console (dashboard/) into dashboard/dist: type-checks it (Vite does not), then
 * bundles it with Vite. `npm start` and `npm test` run it, so a newcomer never builds by hand.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

const check = spawnSync(bin('tsc'), ['-p', join(root, 'dashboard', 'tsconfig.json')], { stdio: 'inherit' });
if (check.status !== 0) process.exit(1);
const build = spawnSync(bin('vite'), ['build', '--config', join(root, 'dashboard', 'vite.config.ts')], {
  stdio: 'inherit',
  cwd: join(root, 'dashboard'),
});
if (build.status === 0) console.log('dashboard built into dashboard/dist');
process.exit(build.status ?? 1);
