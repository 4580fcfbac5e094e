/**
 * `npm run admin -- <command>`. Against a deployed table when TABLE_NAME is set (standard AWS
 * credential chain, ENVIRONMENT=sandbox|production); otherwise against the local server's
 * DynamoDB Local on DYNAMODB_PORT (default 8000) and its exports stand-in on S3_PORT (default
 * 8001), which `npm start` must be running, with the keys of its DATA_DIR (default `.data`).
 */
import { resolve } from 'node:path';
import { applyLocalEnvironment, localExportsBucket, localKeys } from '../local/local-env.ts';

const deployed = process.env.TABLE_NAME !== undefined && process.env.DYNAMODB_ENDPOINT === undefined;
if (!deployed) {
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? `http://127.0.0.1:${process.env.DYNAMODB_PORT ?? 8000}`;
  applyLocalEnvironment(endpoint, {
    ...localKeys(resolve(process.env.DATA_DIR ?? '.data')),
    ...(process.env.TABLE_NAME ? { TABLE_NAME: process.env.TABLE_NAME } : {}),
  });
  const exportsAt = localExportsBucket();
  process.env.S3_ENDPOINT ??= `http://127.0.0.1:${exportsAt.port}`;
  process.env.EXPORTS_BUCKET ??= exportsAt.bucket;
}
const { runAdmin } = await import('../admin/cli.ts');
process.exitCode = await runAdmin(
  process.argv.slice(2),
  (text) => console.log(text),
  (text) => console.error(text),
);
