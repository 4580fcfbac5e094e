/**
 * Dispositions CSV upload of 20,000 rows (part of `npm run bench`): 10,000 returns with two items
 * each, recorded by the upload use case against an in-memory DynamoDB Local, then uploaded again
 * (idempotent: nothing changes). The use case runs in-process without the 5 s request budget (an
 * HTTP request gives up retrying after 5 s; a file this size takes longer), and a 2,000-row file
 * goes through the local server as a person's upload does. The floor beside it: parsing the file
 * alone, and bare SDK writes, one Put per return at the same concurrency.
 * A benchmark to read, never a timed test: the figure depends on the machine (and DynamoDB Local is
 * much slower than DynamoDB).
 */
import type { AddressInfo } from 'node:net';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { parse } from 'csv-parse/sync';
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment, LOCAL_TABLE_NAME } from '../local/local-env.ts';

const RETURNS = Number(process.env.BENCH_UPLOAD_RETURNS ?? 10_000);
const HTTP_RETURNS = Math.min(RETURNS, 1_000);
const ITEMS_PER_RETURN = 2;
const CONCURRENCY = 16;

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
const { uploadDispositions } = await import('../shared/console/dispositions-upload.ts');
const { runInRequestScope } = await import('../shared/request-scope.ts');
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

const caller = {
  merchantId: merchant.merchantId,
  merchantName: 'bench',
  keyId: 'key_bench',
  keyName: 'bench',
  keyHash: '',
};
async function useCase(): Promise<{ ms: number; body: string }> {
  const start = performance.now();
  const answer = await runInRequestScope({ deadline: Date.now() + 30 * 60_000 }, () =>
    uploadDispositions({ caller, body: csv, query: undefined, pathParameters: {} }),
  );
  return { ms: performance.now() - start, body: JSON.stringify(answer.body) };
}
const first = await useCase();
const again = await useCase();

// Through HTTP: a fresh 2,000-row file (returns not yet dispositioned) on a fresh set of returns.
const httpReturns = Array.from({ length: HTTP_RETURNS }, (_, k) => RETURNS + k);
for (let start = 0; start < httpReturns.length; start += 25) {
  const batch = httpReturns.slice(start, start + 25).map((i) => ({ PutRequest: { Item: returnItem(i) } }));
  await documentClient.send(new BatchWriteCommand({ RequestItems: { [LOCAL_TABLE_NAME]: batch } }));
}
const server = createLocalServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/return/dispositions/upload`;
const httpStart = performance.now();
const response = await fetch(url, {
  method: 'POST',
  headers: { Authorization: consoleKey, 'Content-Type': 'text/csv' },
  body: csvOf(RETURNS, RETURNS + HTTP_RETURNS),
});
const httpBody = await response.text();
const httpMs = performance.now() - httpStart;
server.close();
server.closeAllConnections();

const parseStart = performance.now();
parse(csv, { columns: true, skip_empty_lines: true, trim: true, info: true });
const parseMs = performance.now() - parseStart;
let next = 0;
const floorStart = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
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
  `\ndispositions CSV upload: ${rows} rows, ${RETURNS} returns, ${(Buffer.byteLength(csv) / 1e6).toFixed(2)} MB, the upload use case against DynamoDB Local`,
);
console.log(
  `first upload ${seconds(first.ms)} (${Math.round(rows / (first.ms / 1000))} rows/s): ${first.body}`,
);
console.log(`same file again ${seconds(again.ms)}: ${again.body}`);
console.log(
  `through HTTP (the local server), ${HTTP_RETURNS * ITEMS_PER_RETURN} rows: ${response.status} in ${seconds(httpMs)}: ${httpBody}`,
);
console.log(
  `floor: csv-parse alone ${seconds(parseMs)}; ${RETURNS} bare PutItem calls (${CONCURRENCY} at a time) ${seconds(floorMs)}`,
);

await dynamoDb.stop();
