import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** The CLI's local lake (`models train` feeds it from the table's stream): one per test file, not `.data`. */
const lakeDir = mkdtempSync(join(tmpdir(), 'admin-lake-'));

export interface AdminResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `npm run admin -- ...` as a separate process against the test run's DynamoDB Local; a last
 * argument that is an object overrides environment variables (another TABLE_NAME).
 */
export async function admin(...args: (string | Record<string, string>)[]): Promise<AdminResult> {
  const last = args.at(-1);
  const env = typeof last === 'object' ? last : {};
  const words = args.filter((a): a is string => typeof a === 'string');
  try {
    const { stdout, stderr } = await run(process.execPath, ['scripts/admin.ts', ...words], {
      env: {
        ...process.env,
        DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
        TABLE_NAME: process.env.TABLE_NAME,
        LAKE_DIR: lakeDir,
        ...env,
      },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Writes a JSON document to a fresh temporary file and returns its path (for `--file`). */
export async function jsonFile(document: unknown): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'admin-')), 'document.json');
  await writeFile(path, JSON.stringify(document, null, 2));
  return path;
}
