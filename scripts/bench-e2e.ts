/**
 * `npm run bench -- e2e`: the warm order path beside its floor, interleaved, on one DynamoDB Local.
 * Each round sends one order through the local API (the real handler behind the API Gateway
 * adapter), records the DynamoDB calls it made, and replays the same calls from a bare document
 * client (same shapes, keys moved aside so conditions hold): the rate-limit UpdateItem beside the
 * first read, then the rest one after another. Prints p50/p95 of both, their ratio, and the
 * process CPU per request of each (the API's includes the local HTTP adapter and fetch).
 * A benchmark to read, never a timed test. CPU_PROFILE=1 writes a .cpuprofile of the API phase.
 */
import { randomUUID } from 'node:crypto';
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment } from '../local/local-env.ts';
import { orderBody } from './bench-orders.ts';

const ROUNDS = Number(process.env.BENCH_E2E_ROUNDS ?? 300);
const WARMUP = 50;
const TARGET_RATIO = 1.25;
const TARGET_CPU_MS = 2.5;

const dynamoDb = await startDynamoDbLocal({});
applyLocalEnvironment(dynamoDb.endpoint, { POWERTOOLS_LOG_LEVEL: 'CRITICAL' });
try {
  const { dynamoDbClient, tableName } = await import('../shared/store/client.ts');
  const { ensureTable } = await import('../shared/store/ensure-table.ts');
  const { createMerchant, updateMerchant } = await import('../shared/store/merchants.ts');
  const { createLocalServer } = await import('../local/http-adapter.ts');
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoDBDocumentClient, BatchGetCommand, TransactWriteCommand, UpdateCommand, GetCommand } =
    await import('@aws-sdk/lib-dynamodb');
  await ensureTable(dynamoDbClient, tableName);

  // The service's calls of the current round, as the document client got them.
  let recorded: { command: string; input: Record<string, unknown> }[] = [];
  dynamoDbClient.middlewareStack.add(
    (next, context) => async (args) => {
      recorded.push({ command: context.commandName ?? '', input: structuredClone(args.input) as never });
      return next(args);
    },
    { step: 'initialize', priority: 'low', name: 'benchRecorder' },
  );
  const bare = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: dynamoDb.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    { marshallOptions: { removeUndefinedValues: true, allowImpreciseNumbers: true } },
  );

  const { apiKey, merchantId } = await createMerchant({
    name: 'bench-e2e',
    accountUpdatesEnabled: false,
    environment: 'sandbox',
  });
  // Room for every round: the limit is not what is measured (its token call is, when made).
  await updateMerchant(merchantId, { rateLimit: { perSecond: 1_000, burst: 1_000 } });
  const server = createLocalServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1/order`;

  const apiTimes: number[] = [];
  const floorTimes: number[] = [];
  let apiCpu = 0;
  let floorCpu = 0;
  let session: import('node:inspector').Session | undefined;
  if (process.env.CPU_PROFILE) {
    const { Session } = await import('node:inspector');
    session = new Session();
    session.connect();
    session.post('Profiler.enable');
  }
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    if (round === WARMUP && session) session.post('Profiler.start');
    recorded = [];
    const address = { line1: `${round} Main St`, postalCode: '10001', country: 'US' };
    const body = JSON.stringify(orderBody(`e${round}`, Date.now() - 60_000, address));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: apiKey },
      body,
    });
    await response.arrayBuffer();
    const apiMs = performance.now() - t0;
    const apiCpuUs = cpuSince(cpu0);
    if (response.status !== 200) throw new Error(`order answered ${response.status}`);

    const calls = recorded.map((call) => moveAside(call, round));
    const cpu1 = process.cpuUsage();
    const t1 = performance.now();
    const [first, ...rest] = calls.filter((c) => !c.rateLimit);
    const token = calls.find((c) => c.rateLimit);
    await Promise.all([token ? send(token) : undefined, first ? send(first) : undefined]);
    for (const call of rest) await send(call);
    const floorMs = performance.now() - t1;
    const floorCpuUs = cpuSince(cpu1);
    if (round >= WARMUP) {
      apiTimes.push(apiMs);
      floorTimes.push(floorMs);
      apiCpu += apiCpuUs;
      floorCpu += floorCpuUs;
    }
  }
  if (session) {
    const { writeFileSync } = await import('node:fs');
    session.post('Profiler.stop', (error, result) => {
      if (!error) writeFileSync('bench-e2e.cpuprofile', JSON.stringify(result.profile));
    });
  }

  function send(call: { command: string; input: Record<string, unknown> }) {
    switch (call.command) {
      case 'BatchGetItemCommand':
        return bare.send(new BatchGetCommand(call.input as never));
      case 'TransactWriteItemsCommand':
        return bare.send(new TransactWriteCommand(call.input as never));
      case 'UpdateItemCommand':
        return bare.send(new UpdateCommand(call.input as never));
      case 'GetItemCommand':
        return bare.send(new GetCommand(call.input as never));
      default:
        throw new Error(`the floor does not replay ${call.command}`);
    }
  }

  const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? 0;
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  const ratio50 = p(apiTimes, 0.5) / p(floorTimes, 0.5);
  const ratio95 = p(apiTimes, 0.95) / p(floorTimes, 0.95);
  const cpuPerRequest = (apiCpu - floorCpu) / ROUNDS / 1000;
  console.log(
    `\nwarm order path vs its floor, ${ROUNDS} rounds interleaved (after ${WARMUP}), DynamoDB Local`,
  );
  console.log(
    `  API   p50 ${ms(p(apiTimes, 0.5))}  p95 ${ms(p(apiTimes, 0.95))}  CPU ${ms(apiCpu / ROUNDS / 1000)} per request`,
  );
  console.log(
    `  floor p50 ${ms(p(floorTimes, 0.5))}  p95 ${ms(p(floorTimes, 0.95))}  CPU ${ms(floorCpu / ROUNDS / 1000)} per request`,
  );
  console.log(
    `goal 3: p50 ${ratio50.toFixed(2)}x the floor, p95 ${ratio95.toFixed(2)}x (target p50 <= ${TARGET_RATIO}x): ${ratio50 <= TARGET_RATIO ? 'met' : 'MISSED'}; service CPU beyond the floor's ${ms(cpuPerRequest)} per order (target <= ${TARGET_CPU_MS} ms): ${cpuPerRequest <= TARGET_CPU_MS ? 'met' : 'MISSED'}`,
  );
  server.closeAllConnections();
  server.close();
} finally {
  await dynamoDb.stop();
}

function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return used.user + used.system;
}

/** The same call with every key moved to a floor-only partition, so conditions hold as they did. */
function moveAside(call: { command: string; input: Record<string, unknown> }, round: number) {
  const rateLimit =
    call.command === 'UpdateItemCommand' &&
    String((call.input.Key as { PK?: string })?.PK).endsWith('#RATELIMIT');
  const input = JSON.parse(
    JSON.stringify(call.input, (_k, v) => (v instanceof Set ? { __set: [...v] } : v)),
    (key, v) => {
      if (v && typeof v === 'object' && '__set' in v) return new Set(v.__set);
      if ((key === 'PK' || key === 'GSI1PK') && typeof v === 'string') return `FLOOR${round}#${v}`;
      return v;
    },
  ) as Record<string, unknown>;
  // BatchGetItem's RequestItems and their keys are rewritten by the reviver too; a transaction's
  // idempotency token must be its own.
  if (typeof input.ClientRequestToken === 'string') input.ClientRequestToken = randomUUID();
  return { command: call.command, input, rateLimit };
}
