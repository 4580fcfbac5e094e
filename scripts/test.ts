/**
 * `npm test`: format and lint (Biome), type check (tsc), the import-cycle check, the OpenAPI
 * document's lint (Spectral), the client build, the console build (the browser tests serve it), then
 * every vitest suite. Ends with the plain line `N passed, N failed` that CI reads; the lint, type,
 * cycle, document lint and client checks count as one test each.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bin = (name: string) => join(import.meta.dirname, '..', 'node_modules', '.bin', name);
let passed = 0;
let failed = 0;

function check(label: string, command: string, args: string[]): void {
  console.log(`\n> ${label}`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status === 0) passed++;
  else {
    failed++;
    console.log(`${label}: FAILED`);
  }
}

check('biome check (format + lint)', bin('biome'), ['check', '.']);
check('tsc --noEmit (strict type check)', bin('tsc'), ['--noEmit']);
check('import cycles (dpdm: files and modules)', process.execPath, [
  join(import.meta.dirname, 'check-cycles.ts'),
]);
check('unused files, exports and dependencies (knip)', bin('knip'), []);
check('openapi.json lint (Spectral: OpenAPI + OWASP API Security 2023 rules)', process.execPath, [
  join(import.meta.dirname, 'lint-openapi.ts'),
]);
check('client build (types from openapi.json, tsc)', process.execPath, [
  join(import.meta.dirname, 'build-client.ts'),
]);

check('dashboard build (tsc, vite)', process.execPath, [join(import.meta.dirname, 'build-dashboard.ts')]);

const report = join(mkdtempSync(join(tmpdir(), 'vitest-')), 'report.json');
console.log('\n> vitest run');
const vitest = spawnSync(
  bin('vitest'),
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  {
    stdio: 'inherit',
  },
);
try {
  const results = JSON.parse(readFileSync(report, 'utf8')) as {
    numPassedTests: number;
    numFailedTests: number;
  };
  passed += results.numPassedTests;
  failed += results.numFailedTests;
  if (vitest.status !== 0 && results.numFailedTests === 0) failed++; // a suite that failed to load
} catch {
  console.log('vitest wrote no report: counting the run as one failure');
  failed++;
}
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
