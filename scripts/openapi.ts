/**
 * `npm run openapi`: writes openapi.json at the repository root from the endpoint registry
 * (shared/contract/openapi.ts). Deterministic: the same code gives the same bytes, so the committed
 * file is checked for staleness by test/openapi.test.ts. `--check` only compares.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildOpenApiDocument } from '../shared/contract/openapi.ts';

export const OPENAPI_FILE = join(import.meta.dirname, '..', 'openapi.json');
const text = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
if (process.argv.includes('--check')) {
  const current = readFileSync(OPENAPI_FILE, 'utf8');
  if (current !== text) {
    console.error('openapi.json is stale: run npm run openapi');
    process.exit(1);
  }
  console.log('openapi.json is up to date');
} else {
  writeFileSync(OPENAPI_FILE, text);
  console.log(`wrote ${OPENAPI_FILE}`);
}
