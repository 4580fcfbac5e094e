/**
 * Dispositions CSV upload of 20,000 rows (part of `npm run bench`): 10,000 returns with two items
 * each, against an in-memory DynamoDB Local. The file goes through the local server as a person's
 * upload does: the POST (every row validated, the job stored) answers 202, then the upload worker
 * (the same code as `npm start`'s poller and the AWS worker Lambda) records it; timed separately,
 * then again for the same file (idempotent: nothing new is recorded). The floor beside it: parsing
 * the file alone, and bare SDK writes, one Put per return at the worker's concurrency.
 * A benchmark to read, never a timed test: the figure depends on the machine (and DynamoDB Local
 * runs transactions one at a time, far slower than DynamoDB).
 */
import type { AddressInfo } from 'node:net';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { parse } from 'csv-parse/sync';
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment, LOCAL_TABLE_NAME } from '../local/local-env.ts';

const RETURNS = Number(process.env.BENCH_UPLOAD_RETURNS ?? 10_000);
const ITEMS_PER_RETURN = 2;

const dynamoDb = await startDynamoDbLocal({});
applyLocalEnvironment(dynamoDb.endpoint, {
  POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'CRITICAL',
});
// Whatever happens below, DynamoDB Local stops with the script.
process.on('exit', () => void dynamoDb.stop());
const { ensureTable } = await import('../shared/store/ensure-table.ts');
const { dynamoDbClient, documentClient } = await import('../shared/store/client.ts');
const { createApiKey, createMerchant } = await import('../shared/store/merchants.ts');
const { keys } = await import('../shared/store/keys.ts');
const { CSV_COLUMNS } = await import('../shared/console/dispositions-upload.ts');
const { createLocalServer } = await import('../local/http-adapter.ts');
const { runUploadWorker, RECORD_CONCURRENCY } = await import('../shared/use-cases/record-upload.ts');
await ensureTable(dynamoDbClient, LOCAL_TABLE_NAME);

const merchant = await createMerchant({
  name: 'bench',
  accountUpdatesEnabled: false,
  environment: 'sandbox',
});
const consoleKey = (await createApiKey({
  merchantId: merchant.merchantId,
  environment: 'sandbox',
  scope: 'console',
  name: 'bench',
}))!.apiKey;

// Stored returns as the return use case leaves them (only what dispositions read), written in bulk.
const returnId = (i: number) => `r-${i}`;
const sku = (i: number, item: number) => `SKU-${i}-${item}`;
const returnItem = (i: number) => ({
  ...keys.return(merchant.merchantId, returnId(i)),
  entity: 'return',
  merchantId: merchant.merchantId,
  providerReturnId: returnId(i),
  serviceReturnId: `svc-${i}`,
  items: Array.from({ length: ITEMS_PER_RETURN }, (_, item) => ({
    identifiers: [{ identifierType: 'SKU', identifier: sku(i, item) }],
    orderLine: item,
    quantity: 1,
    value: 10,
    category: 'Apparel',
    reason: 'Did not fit',
  })),
  // One customer per return: uploads of different customers' returns never contend for a counter.
  identities: [`email#bench-email-${i}`, `device#bench-device-${i}`],
  decisions: [],
  version: 1,
  createdAt: new Date().toISOString(),
});
for (let start = 0; start < RETURNS; start += 25) {
  const batch = Array.from({ length: Math.min(25, RETURNS - start) }, (_, k) => ({
    PutRequest: { Item: returnItem(start + k) },
  }));
  await documentClient.send(new BatchWriteCommand({ RequestItems: { [LOCAL_TABLE_NAME]: batch } }));
}

const conditions = ['NEW', 'OPEN_BOX', 'EMPTY_BOX', 'HEAVILY_USED'];
function csvOf(from: number, to: number): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (let i = from; i < to; i++) {
    for (let item = 0; item < ITEMS_PER_RETURN; item++) {
      lines.push(
        `${returnId(i)},SKU,${sku(i, item)},${conditions[(i + item) % conditions.length]},RESTOCK,DROPOFF,CASH,WH-1,,https://img.example/${i}.jpg,checked`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
const csv = csvOf(0, RETURNS);
const rows = RETURNS * ITEMS_PER_RETURN;

const server = createLocalServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** POST the file (validation + job stored), then the worker until the job is done. */
async function uploadAndRecord() {
  const postStart = performance.now();
  const accepted = await fetch(`${baseUrl}/v1/return/dispositions/upload`, {
    method: 'POST',
    headers: { Authorization: consoleKey, 'Content-Type': 'text/csv' },
    body: csv,
  });
  const acceptedBody = await accepted.text();
  const postMs = performance.now() - postStart;
  if (accepted.status !== 202) throw new Error(`upload answered ${accepted.status}: ${acceptedBody}`);
  const jobStart = performance.now();
  await runUploadWorker({ merchantId: merchant.merchantId });
  const jobMs = performance.now() - jobStart;
  const status = await fetch(`${baseUrl}${accepted.headers.get('location')}`, {
    headers: { Authorization: consoleKey },
  });
  const {
    status: state,
    returnsRecorded,
    returnsAlreadyPresent,
    returnsFailed,
  } = (await status.json()) as Record<string, unknown>;
  return { postMs, jobMs, result: { state, returnsRecorded, returnsAlreadyPresent, returnsFailed } };
}
const first = await uploadAndRecord();
const again = await uploadAndRecord();
server.close();
server.closeAllConnections();

const parseStart = performance.now();
parse(csv, { columns: true, skip_empty_lines: true, trim: true, info: true });
const parseMs = performance.now() - parseStart;
let next = 0;
const floorStart = performance.now();
await Promise.all(
  Array.from({ length: RECORD_CONCURRENCY }, async () => {
    while (next < RETURNS) {
      const i = next++;
      await documentClient.send(
        new PutCommand({
          TableName: LOCAL_TABLE_NAME,
          Item: { ...keys.returnDispositions(merchant.merchantId, `floor-${i}`), byLine: {}, version: 1 },
        }),
      );
    }
  }),
);
const floorMs = performance.now() - floorStart;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
console.log(
  `\ndispositions CSV upload: ${rows} rows, ${RETURNS} returns, ${(Buffer.byteLength(csv) / 1e6).toFixed(2)} MB, through the local server and DynamoDB Local`,
);
for (const [name, run] of [
  ['first upload', first],
  ['same file again', again],
] as const) {
  console.log(
    `${name}: POST (validate every row, store the job) -> 202 in ${seconds(run.postMs)}; job recorded in ${seconds(run.jobMs)} (${Math.round(RETURNS / (run.jobMs / 1000))} returns/s); POST to done ${seconds(run.postMs + run.jobMs)}: ${JSON.stringify(run.result)}`,
  );
}
console.log(
  `floor: csv-parse alone ${seconds(parseMs)}; ${RETURNS} bare PutItem calls (${RECORD_CONCURRENCY} at a time) ${seconds(floorMs)}`,
);

await dynamoDb.stop();
