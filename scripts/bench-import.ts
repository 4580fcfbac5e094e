/**
 * History import throughput (`npm run bench` runs it after the scoring benchmark, in its own process
 * so the store client is built for DynamoDB Local): a seeded history of every event type imported
 * into an in-memory DynamoDB Local through `runImport`, the same code as `admin import`, after a
 * warm-up import of another seeded history into another merchant (a fresh emulator spends most of
 * its first thousands of requests compiling itself: measured cold, the figure is the JIT's). Printed
 * beside its floor at the same concurrency on the same warm emulator, per event: a bare BatchGetItem
 * of 7 keys and a TransactWriteItems of 7 one-clause updates (an order's usual identities and
 * record), the two round trips an event cannot do without; and the CPU both processes spent.
 *
 * First, a large history file (BENCH_IMPORT_FILE_SHOPPERS shoppers, 40,000 by default: about
 * 172,000 lines, 83 MB) validated as `admin import --dry-run` streams it, in a process of its own:
 * its wall time and that process's peak resident memory.
 *
 * `BENCH_IMPORT_CALLS=1` also records every DynamoDB call of the measured import and prints, per
 * operation, its count, mean request bytes, items, update clauses and wall time (where an import's
 * time goes); `BENCH_IMPORT_CALLS=file.json` also writes the recorded
 * transactions there, to replay them in variants.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment } from '../local/local-env.ts';

// 1,600 shoppers = 6,908 events: an import is thousands to millions of events, and below a few
// thousand the figure is still DynamoDB Local's JIT warming up (400 shoppers: 206 events/s, quiet machine).
const SHOPPERS = Number(process.env.BENCH_IMPORT_SHOPPERS ?? 1_600);
const TARGET_PER_SECOND = 300;
const CONCURRENCY = Number(process.env.BENCH_IMPORT_CONCURRENCY ?? 16);
const FLOOR_ITEMS = 7;
const DAY_MS = 86_400_000;

const FILE_SHOPPERS = Number(process.env.BENCH_IMPORT_FILE_SHOPPERS ?? 40_000);
const VALIDATE_ONLY = '--validate';

if (process.argv[2] === VALIDATE_ONLY) {
  await validateOnly(process.argv[3]!);
  process.exit(0);
}
await validateLargeFile();
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

  const historyOf = (seed: number) => {
    const text = toNdjson(historyLines({ shoppers: SHOPPERS, seed, start: Date.now() - 300 * DAY_MS }));
    const parsed = parseImportFile(text);
    if (parsed.problems.length > 0)
      throw new Error(`bench history has bad lines: ${JSON.stringify(parsed.problems[0])}`);
    return parsed.events;
  };
  const newMerchant = async () => {
    const { merchantId } = await createMerchant({
      name: 'bench',
      accountUpdatesEnabled: true,
      environment: 'sandbox',
    });
    return (await getMerchant(merchantId))!;
  };
  // CPU seconds of this process and of the emulator (its java child process).
  const emulatorPid = execFileSync('pgrep', ['-P', String(process.pid), 'java'], { encoding: 'utf8' }).trim();
  const cpuSeconds = () => {
    const fields = readFileSync(`/proc/${emulatorPid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const own = process.cpuUsage();
    return { node: (own.user + own.system) / 1e6, emulator: (Number(fields[11]) + Number(fields[12])) / 100 };
  };

  await runImport(historyOf(6), { merchant: await newMerchant(), concurrency: CONCURRENCY });

  const parseStarted = performance.now();
  const events = historyOf(5);
  const parseMs = performance.now() - parseStarted;
  const merchant = await newMerchant();
  const calls = process.env.BENCH_IMPORT_CALLS ? recordCalls(dynamoDbClient) : undefined;
  const cpuBefore = cpuSeconds();
  const summary = await runImport(events, { merchant, concurrency: CONCURRENCY });
  const cpuAfter = cpuSeconds();
  calls?.stop();
  const perSecond = summary.events / summary.seconds;
  const cpuPerEvent = (part: 'node' | 'emulator') =>
    (((cpuAfter[part] - cpuBefore[part]) * 1000) / summary.events).toFixed(1);

  const floorStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < events.length) {
        const i = next++;
        const floorKeys = Array.from({ length: FLOOR_ITEMS }, (_, k) => ({
          PK: `BENCH#${i}#${k}`,
          SK: 'FLOOR',
        }));
        await documentClient.send(
          new BatchGetCommand({ RequestItems: { [tableName]: { Keys: floorKeys, ConsistentRead: true } } }),
        );
        await documentClient.send(
          new TransactWriteCommand({
            TransactItems: floorKeys.map((Key) => ({
              Update: {
                TableName: tableName,
                Key,
                UpdateExpression: 'ADD n :one',
                ExpressionAttributeValues: { ':one': 1 },
              },
            })),
          }),
        );
      }
    }),
  );
  const floorPerSecond = events.length / ((performance.now() - floorStarted) / 1000);

  console.log(
    `\nhistory import, ${summary.events} events (${SHOPPERS} shoppers, every event type), concurrency ${CONCURRENCY}, DynamoDB Local in memory, after a warm-up import of as many`,
  );
  console.log(`parse + validate (in memory, from a string): ${parseMs.toFixed(0)} ms`);
  console.log(
    `import: ${summary.seconds} s, ${perSecond.toFixed(0)} events/s (imported ${summary.imported}, rejected ${summary.rejected}); CPU per event: node ${cpuPerEvent('node')} ms, DynamoDB Local ${cpuPerEvent('emulator')} ms`,
  );
  console.log(
    `floor, bare BatchGetItem of ${FLOOR_ITEMS} keys + TransactWriteItems of ${FLOOR_ITEMS} updates per event: ${floorPerSecond.toFixed(0)} events/s`,
  );
  console.log(
    `target >= ${TARGET_PER_SECOND} events/s: ${perSecond >= TARGET_PER_SECOND ? 'met' : 'MISSED'}`,
  );
  if (calls) calls.report(summary.events);
} finally {
  await dynamoDb.stop();
}

/** The large file written to a temporary directory, then validated by a fresh process of its own. */
async function validateLargeFile() {
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { historyLines, toNdjson } = await import('../eval/history-file.ts');
  const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
  const path = join(dir, 'history.ndjson');
  await writeFile(
    path,
    toNdjson(historyLines({ shoppers: FILE_SHOPPERS, seed: 21, start: Date.now() - 300 * DAY_MS })),
  );
  try {
    execFileSync(process.execPath, [process.argv[1]!, VALIDATE_ONLY, path], { stdio: 'inherit' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `bench-import.ts --validate <file>`: the dry run alone, its wall time and the process's peak memory. */
async function validateOnly(path: string) {
  applyLocalEnvironment('http://127.0.0.1:9', { POWERTOOLS_LOG_LEVEL: 'CRITICAL' });
  const { historyFile } = await import('../shared/history-import/file-source.ts');
  const { importHistory } = await import('../shared/history-import/import-history.ts');
  const rssBefore = process.resourceUsage().maxRSS / 1024;
  const started = performance.now();
  const checked = await importHistory(historyFile(path), {
    merchant: { merchantId: 'mer_bench', accountUpdatesEnabled: true } as never,
    dryRun: true,
  });
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `validate (dry run, streamed) ${checked.events} lines, ${(checked.bytes / 1024 / 1024).toFixed(0)} MB: ${seconds.toFixed(1)} s, ${(checked.events / seconds).toFixed(0)} lines/s; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB (${rssBefore.toFixed(0)} MB loaded, before reading)`,
  );
}

interface RecordedCall {
  operation: string;
  bytes: number;
  ms: number;
  items: number;
  clauses: number;
  body: string;
}

/** Records every call the client sends from now until stop(), as sent on the wire. */
function recordCalls(client: import('@aws-sdk/client-dynamodb').DynamoDBClient) {
  const recorded: RecordedCall[] = [];
  let recording = true;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const body = String((args.request as { body?: unknown }).body ?? '');
      const started = performance.now();
      const result = await next(args);
      if (!recording) return result;
      const parsed = JSON.parse(body || '{}') as {
        TransactItems?: { Update?: { UpdateExpression: string } }[];
        RequestItems?: Record<string, { Keys: unknown[] }>;
      };
      const updates = (parsed.TransactItems ?? []).flatMap((i) =>
        i.Update ? [i.Update.UpdateExpression] : [],
      );
      recorded.push({
        operation: context.commandName ?? '?',
        bytes: body.length,
        ms: performance.now() - started,
        items:
          parsed.TransactItems?.length ??
          Object.values(parsed.RequestItems ?? {}).reduce((n, r) => n + r.Keys.length, 0),
        clauses: updates.reduce((n, e) => n + e.split(/,|ADD|SET|REMOVE/).length - 1, 0),
        body,
      });
      return result;
    },
    { step: 'finalizeRequest', name: 'benchRecordCalls' },
  );
  return {
    stop: () => {
      recording = false;
    },
    report: (events: number) => {
      const mean = (list: RecordedCall[], of: (c: RecordedCall) => number) =>
        list.reduce((n, c) => n + of(c), 0) / list.length;
      for (const operation of new Set(recorded.map((c) => c.operation))) {
        const list = recorded.filter((c) => c.operation === operation);
        console.log(
          `  ${operation}: ${(list.length / events).toFixed(2)} per event, mean ${mean(list, (c) => c.bytes).toFixed(0)} B, ${mean(list, (c) => c.items).toFixed(1)} items, ${mean(list, (c) => c.clauses).toFixed(1)} update clauses, ${mean(list, (c) => c.ms).toFixed(1)} ms wall`,
        );
      }
      const file = process.env.BENCH_IMPORT_CALLS;
      if (file && file !== '1') {
        const transactions = recorded.filter((c) => c.operation === 'TransactWriteItemsCommand');
        writeFileSync(file, JSON.stringify(transactions.map((c) => JSON.parse(c.body))));
      }
    },
  };
}
