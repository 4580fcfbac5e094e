/**
 * `npm start`: DynamoDB Local (persisted under DATA_DIR) + the local API Gateway adapter on PORT +
 * the webhook and upload workers polling their queues + the lake fed from the table's stream
 * (DATA_DIR/lake). Ctrl-C stops them.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { JavaMissingError, startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment, localExportsBucket, localKeys } from '../local/local-env.ts';

const port = Number(process.env.PORT ?? 3000);
const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const dynamoDbPort = Number(process.env.DYNAMODB_PORT ?? 8000);

let dynamoDb: Awaited<ReturnType<typeof startDynamoDbLocal>>;
try {
  dynamoDb = await startDynamoDbLocal({ port: dynamoDbPort, dbPath: join(dataDir, 'dynamodb') });
} catch (error) {
  console.error(
    error instanceof JavaMissingError
      ? error.message
      : `Could not start DynamoDB Local: ${(error as Error).message}`,
  );
  process.exit(1);
}
applyLocalEnvironment(dynamoDb.endpoint, localKeys(dataDir));

// The merchant console, served at / beside the API (rebuilt when its sources changed).
const consoleBuild = spawnSync(process.execPath, [join(import.meta.dirname, 'build-dashboard.ts')], {
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (consoleBuild.status !== 0) {
  console.error(
    'Could not build the console (dashboard/): run `node scripts/build-dashboard.ts` to see why.',
  );
  await dynamoDb.stop();
  process.exit(1);
}

// Privacy and bulk exports go to an in-memory S3 stand-in (gone when this stops), as to their bucket in AWS.
const { startS3ObjectServer } = await import('../local/s3-stand-in.ts');
const exportsAt = localExportsBucket();
const s3 = await startS3ObjectServer(exportsAt.port).catch(async (error: Error) => {
  console.error(`Could not serve exports on port ${exportsAt.port} (set S3_PORT): ${error.message}`);
  await dynamoDb.stop();
  process.exit(1);
});
process.env.S3_ENDPOINT ??= s3.endpoint;
process.env.EXPORTS_BUCKET ??= exportsAt.bucket;

const { ensureTable } = await import('../shared/store/ensure-table.ts');
const { dynamoDbClient, tableName } = await import('../shared/store/client.ts');
const { createApiKey, createMerchant } = await import('../shared/store/merchants.ts');
const { readRuntimeConfig } = await import('../shared/config.ts');
const { createLocalServer } = await import('../local/http-adapter.ts');
const { startWebhookPoller } = await import('../local/webhook-poller.ts');
const { startNetworkPoller } = await import('../local/network-poller.ts');
const { startUploadPoller } = await import('../local/upload-poller.ts');
const { startLakePoller } = await import('../local/lake-poller.ts');
const { startPrivacyPoller } = await import('../local/privacy-poller.ts');
const { startOverviewPoller } = await import('../local/overview-poller.ts');
const { startLakeJobsPoller } = await import('../local/lake-jobs-poller.ts');

await ensureTable(dynamoDbClient, tableName);

// The demo merchant's key is kept (local only, git-ignored) so every start can print it again.
const demoFile = join(dataDir, 'demo-merchant.json');
if (!existsSync(demoFile)) {
  const demo = await createMerchant({
    name: 'Demo merchant',
    accountUpdatesEnabled: true,
    environment: 'sandbox',
  });
  writeFileSync(
    demoFile,
    JSON.stringify({ merchantId: demo.merchantId, keyId: demo.keyId, apiKey: demo.apiKey }, null, 2),
  );
  console.log('Created a demo sandbox merchant.');
}
const demo = JSON.parse(readFileSync(demoFile, 'utf8')) as {
  merchantId: string;
  apiKey: string;
  consoleKey?: string;
};
if (!demo.consoleKey) {
  // A console key for the demo merchant, so the console at / can be tried at once.
  const issued = await createApiKey({
    merchantId: demo.merchantId,
    environment: 'sandbox',
    scope: 'console',
    name: 'demo@localhost',
  });
  demo.consoleKey = issued!.apiKey;
  writeFileSync(demoFile, JSON.stringify(demo, null, 2));
}
console.log(`Demo merchant ${demo.merchantId}, API key: ${demo.apiKey}`);
console.log(`Console key (sign in at /): ${demo.consoleKey}`);

const server = createLocalServer({ webAcl: true });
// Webhooks go out from here, as the worker Lambda sends them in AWS.
const webhooks = startWebhookPoller();
// Accepted disposition uploads are recorded from here, as the upload worker Lambda does in AWS.
const uploads = startUploadPoller();
// Members' feedback and first sightings reach the network from here, as the worker Lambda's stream does in AWS.
const network = startNetworkPoller();
// Decided events, feedback and list changes reach the lake (.data/lake) from here, as Firehose writes it in AWS.
const lake = await startLakePoller(join(dataDir, 'lake'));
// Privacy requests (erase, export) run from here, as the privacy worker Lambda does in AWS.
const privacy = startPrivacyPoller(join(dataDir, 'lake'));
// Decisions reach the console overview's counters from here, as the overview feed Lambda counts them in AWS.
const overviewCounters = startOverviewPoller({ checkpointFile: join(dataDir, 'overview-stream.json') });
// Bulk exports and backtests (POST /v1/exports, /v1/backtests) run on the local lake from here, as
// their state machines do in AWS.
const lakeJobs = startLakeJobsPoller(join(dataDir, 'lake'));
server.listen(port, '127.0.0.1', () => {
  console.log(`Abuse-decision API (${readRuntimeConfig().environment}) ready at http://127.0.0.1:${port}`);
  console.log(
    `Merchant console: http://127.0.0.1:${port}/ (sign in with a console key; see README, Console)`,
  );
});

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  // Attempts in flight are not waited for: their deliveries stay pending in the table for next time.
  void webhooks.stop();
  uploads.stop();
  network.stop();
  lake.stop();
  privacy.stop();
  overviewCounters.stop();
  lakeJobs.stop();
  await s3.close();
  server.close();
  server.closeAllConnections();
  await dynamoDb.stop();
  process.exit(0);
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
