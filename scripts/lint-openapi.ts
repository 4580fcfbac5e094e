/**
 * `npm run lint:openapi` (and a check of `npm test`): lints openapi.json with Spectral and the
 * ruleset in .spectral.yaml (Spectral's OpenAPI rules and the OWASP API Security Top 10 2023 rules).
 * Prints every error and the warnings counted by rule; fails on any error.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const report = join(mkdtempSync(join(tmpdir(), 'spectral-')), 'report.json');
const run = spawnSync(
  join(root, 'node_modules', '.bin', 'spectral'),
  ['lint', 'openapi.json', '--ruleset', '.spectral.yaml', '--format', 'json', '--output', report, '--quiet'],
  { cwd: root, stdio: 'inherit' },
);

interface Finding {
  code: string;
  message: string;
  path: (string | number)[];
  severity: number;
}
let findings: Finding[];
try {
  findings = JSON.parse(readFileSync(report, 'utf8')) as Finding[];
} catch {
  console.error(`spectral wrote no report (exit ${run.status})`);
  process.exit(1);
}

const errors = findings.filter((f) => f.severity === 0);
const warnings = findings.filter((f) => f.severity === 1);
for (const error of errors) console.error(`error ${error.code} at ${error.path.join('.')}: ${error.message}`);
const byRule = Map.groupBy(warnings, (w) => w.code);
for (const [rule, list] of [...byRule].sort((a, b) => b[1].length - a[1].length)) {
  console.log(`  ${list.length} warning(s) ${rule}`);
}
console.log(`spectral: ${errors.length} errors, ${warnings.length} warnings in openapi.json`);
process.exit(errors.length === 0 ? 0 : 1);
