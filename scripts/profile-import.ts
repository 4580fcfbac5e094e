/**
 * Where an import's time goes (README, History import speed): imports the bench's seeded history into
 * an in-memory DynamoDB Local, recording every DynamoDB call (operation, request bytes, items,
 * update clauses, wall time), then prints per operation its count, mean size and mean time.
 * `PROFILE_DUMP=file` also writes the recorded transactions as JSON, for replays in variants.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment } from '../local/local-env.ts';

const SHOPPERS = Number(process.env.BENCH_IMPORT_SHOPPERS ?? 400);
const CONCURRENCY = Number(process.env.BENCH_IMPORT_CONCURRENCY ?? 16);

const dynamoDb = await startDynamoDbLocal({});
applyLocalEnvironment(dynamoDb.endpoint, { POWERTOOLS_LOG_LEVEL: 'CRITICAL' });
try {
  const { historyLines, toNdjson } = await import('../eval/history-file.ts');
  const { parseImportFile } = await import('../shared/history-import/import-lines.ts');
  const { runImport } = await import('../shared/history-import/run-import.ts');
  const { ensureTable } = await import('../shared/store/ensure-table.ts');
  const { dynamoDbClient, tableName } = await import('../shared/store/client.ts');
  const { createMerchant, getMerchant } = await import('../shared/store/merchants.ts');
  await ensureTable(dynamoDbClient, tableName);

  interface Call {
    op: string;
    bytes: number;
    ms: number;
    items: number;
    clauses: number;
    body: string;
  }
  const calls: Call[] = [];
  dynamoDbClient.middlewareStack.add(
    (next, context) => async (args) => {
      const body = String((args.request as { body?: unknown }).body ?? '');
      const started = performance.now();
      const result = await next(args);
      const parsed = JSON.parse(body || '{}') as {
        TransactItems?: { Update?: { UpdateExpression: string } }[];
        RequestItems?: Record<string, { Keys: unknown[] }>;
      };
      const updates = (parsed.TransactItems ?? []).flatMap((i) =>
        i.Update ? [i.Update.UpdateExpression] : [],
      );
      calls.push({
        op: context.commandName ?? '?',
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
    { step: 'finalizeRequest', name: 'profileCalls' },
  );

  const text = toNdjson(historyLines({ shoppers: SHOPPERS, seed: 5, start: Date.now() - 300 * 86_400_000 }));
  const { events } = parseImportFile(text);
  const newMerchant = async () => {
    const { merchantId } = await createMerchant({
      name: 'bench',
      accountUpdatesEnabled: true,
      environment: 'sandbox',
    });
    return (await getMerchant(merchantId))!;
  };
  // PROFILE_WARMUP=1: the same history into another merchant first, so the emulator's JIT is warm.
  if (process.env.PROFILE_WARMUP)
    await runImport(events, { merchant: await newMerchant(), concurrency: CONCURRENCY });
  const merchant = await newMerchant();
  calls.length = 0;
  // CPU seconds of this process and of the emulator (a child java process) during the import.
  const javaPid = execFileSync('pgrep', ['-P', String(process.pid), 'java'], { encoding: 'utf8' }).trim();
  const javaCpu = () => {
    const fields = readFileSync(`/proc/${javaPid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  const javaBefore = javaCpu();
  const nodeBefore = process.cpuUsage();
  const summary = await runImport(events, { merchant, concurrency: CONCURRENCY });
  const node = process.cpuUsage(nodeBefore);
  console.log(
    `CPU during the import: node ${((node.user + node.system) / 1e6).toFixed(1)} s, DynamoDB Local ${(javaCpu() - javaBefore).toFixed(1)} s`,
  );
  console.log(
    `${summary.events} events in ${summary.seconds} s: ${(summary.events / summary.seconds).toFixed(0)}/s`,
  );
  const byOp = new Map<string, Call[]>();
  for (const c of calls) byOp.set(c.op, [...(byOp.get(c.op) ?? []), c]);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  for (const [op, list] of byOp) {
    console.log(
      `${op}: ${list.length} calls, ${(list.length / summary.events).toFixed(2)}/event, mean ${mean(list.map((c) => c.bytes)).toFixed(0)} B, ${mean(list.map((c) => c.items)).toFixed(1)} items, ${mean(list.map((c) => c.clauses)).toFixed(1)} update clauses, ${mean(list.map((c) => c.ms)).toFixed(1)} ms mean wall, total ${(list.reduce((a, c) => a + c.ms, 0) / 1000).toFixed(1)} s`,
    );
  }
  if (process.env.PROFILE_DUMP)
    writeFileSync(
      process.env.PROFILE_DUMP,
      JSON.stringify(
        calls.filter((c) => c.op === 'TransactWriteItemsCommand').map((c) => JSON.parse(c.body)),
      ),
    );
} finally {
  await dynamoDb.stop();
}
