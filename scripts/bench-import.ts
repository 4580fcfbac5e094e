/**
 * History import throughput (`npm run bench` runs it after the scoring benchmark, in its own process
 * so the store client is built for DynamoDB Local): a seeded history of every event type imported
 * into an in-memory DynamoDB Local through `runImport`, the same code as `admin import`, after a
 * small warm-up import (the emulator's JIT). Printed beside its floor: per event, a bare
 * BatchGetItem of 7 keys and a TransactWriteItems of 7 updates (an order's usual identities and
 * record) at the same concurrency, the two round trips an event cannot do without.
 */
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment } from '../local/local-env.ts';

const SHOPPERS = Number(process.env.BENCH_IMPORT_SHOPPERS ?? 400);
const TARGET_PER_SECOND = 300;
const CONCURRENCY = Number(process.env.BENCH_IMPORT_CONCURRENCY ?? 16);

const dynamoDb = await startDynamoDbLocal({});
applyLocalEnvironment(dynamoDb.endpoint, { POWERTOOLS_LOG_LEVEL: 'CRITICAL' });
try {
  const { historyLines, toNdjson } = await import('../eval/history-file.ts');
  const { parseImportFile } = await import('../shared/history-import/import-lines.ts');
  const { runImport } = await import('../shared/history-import/run-import.ts');
  const { ensureTable } = await import('../shared/store/ensure-table.ts');
  const { documentClient, dynamoDbClient, tableName } = await import('../shared/store/client.ts');
  const { createMerchant, getMerchant } = await import('../shared/store/merchants.ts');
  const { BatchGetCommand, TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  await ensureTable(dynamoDbClient, tableName);

  const text = toNdjson(historyLines({ shoppers: SHOPPERS, seed: 5, start: Date.now() - 300 * 86_400_000 }));
  const parseStarted = performance.now();
  const { events, problems } = parseImportFile(text);
  const parseMs = performance.now() - parseStarted;
  if (problems.length > 0) throw new Error(`bench history has bad lines: ${JSON.stringify(problems[0])}`);
  const { merchantId } = await createMerchant({
    name: 'bench',
    accountUpdatesEnabled: true,
    environment: 'sandbox',
  });
  const merchant = (await getMerchant(merchantId))!;
  const summary = await runImport(events, { merchant, concurrency: CONCURRENCY });
  const perSecond = summary.events / summary.seconds;

  const floorStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < events.length) {
        const i = next++;
        const key = { PK: `BENCH#${i}`, SK: 'FLOOR' };
        await documentClient.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: [key] } } }));
        await documentClient.send(
          new TransactWriteCommand({
            TransactItems: [{ Put: { TableName: tableName, Item: { ...key, n: i } } }],
          }),
        );
      }
    }),
  );
  const floorPerSecond = events.length / ((performance.now() - floorStarted) / 1000);

  console.log(
    `\nhistory import, ${summary.events} events (${SHOPPERS} shoppers, every event type), concurrency ${CONCURRENCY}, DynamoDB Local in memory`,
  );
  console.log(`parse + validate + sort: ${parseMs.toFixed(0)} ms`);
  console.log(
    `import: ${summary.seconds} s, ${perSecond.toFixed(0)} events/s (imported ${summary.imported}, rejected ${summary.rejected})`,
  );
  console.log(
    `floor, bare BatchGetItem + TransactWriteItems per event: ${floorPerSecond.toFixed(0)} events/s`,
  );
  console.log(
    `target >= ${TARGET_PER_SECOND} events/s: ${perSecond >= TARGET_PER_SECOND ? 'met' : 'MISSED'}`,
  );
} finally {
  await dynamoDb.stop();
}
