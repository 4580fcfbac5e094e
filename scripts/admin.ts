/**
 * `npm run admin -- <command>`. Against a deployed table when TABLE_NAME is set (standard AWS
 * credential chain, ENVIRONMENT=sandbox|production); otherwise against the local server's
 * DynamoDB Local on DYNAMODB_PORT (default 8000), which `npm start` must be running.
 */
import { applyLocalEnvironment } from '../local/local-env.ts';

const deployed = process.env.TABLE_NAME !== undefined && process.env.DYNAMODB_ENDPOINT === undefined;
if (!deployed) {
  const endpoint = process.env.DYNAMODB_ENDPOINT ?? `http://127.0.0.1:${process.env.DYNAMODB_PORT ?? 8000}`;
  applyLocalEnvironment(endpoint, process.env.TABLE_NAME ? { TABLE_NAME: process.env.TABLE_NAME } : {});
}
const { runAdmin } = await import('../admin/cli.ts');
process.exitCode = await runAdmin(
  process.argv.slice(2),
  (text) => console.log(text),
  (text) => console.error(text),
);
