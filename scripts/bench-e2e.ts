/**
 * `npm run bench -- e2e`: the warm order path beside its floor, interleaved, on one DynamoDB Local.
 * The service (the local API: the real handler behind the API Gateway adapter) runs in a worker
 * thread of its own (`bench-e2e-service.ts`), so its CPU per request is that thread's alone. Each
 * round this thread sends one order to it over a keep-alive `node:http` connection, asks for the
 * DynamoDB calls the handler made, and replays the same calls from a bare document client (same
 * shapes, keys moved aside so conditions hold): the rate-limit UpdateItem beside the first read,
 * then the rest one after another. The floor's CPU is this thread's during the replay (the bare
 * client alone). Prints p50/p95 of both, their ratio, and CPU per request of each; the HTTP client's
 * own CPU is printed beside them and counted in neither (the client is not the service).
 * A benchmark to read, never a timed test. CPU_PROFILE=1 writes bench-e2e.cpuprofile of the
 * service thread over the measured rounds; BENCH_E2E_CHECK_RECORDER=1 checks the service leaves its
 * DynamoDB inputs alone after sending them (the recorder keeps references).
 * Also prints, per order, the DynamoDB round trips of the timed rounds and the capacity of METERED
 * orders sent after them (bench-meter.ts: AWS's billing rules; metering adds reads, so it is off
 * while timing). BENCH_E2E_NETWORK=1 makes the bench merchant a network member whose every order's
 * card, device and e-mail already have a reputation (bench-e2e-network.ts); NETWORK_CACHE_MS=0 then
 * reads them from DynamoDB on every order, whatever the per-instance cache would hold.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { Worker } from 'node:worker_threads';
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment } from '../local/local-env.ts';
import type { NetworkSeed } from './bench-e2e-network.ts';
import type { RecordedCall, ServiceMessage, ServiceOptions, ServiceRequest } from './bench-e2e-service.ts';
import { orderBody } from './bench-orders.ts';

const ROUNDS = Number(process.env.BENCH_E2E_ROUNDS ?? 300);
const WARMUP = 50;
const TARGET_RATIO = 1.25;
const TARGET_CPU_MS = 2.5;
const METERED = 20;
const TARGET_ROUND_TRIPS = 2;
const NETWORK = Boolean(process.env.BENCH_E2E_NETWORK);

const dynamoDb = await startDynamoDbLocal({});
applyLocalEnvironment(dynamoDb.endpoint, { POWERTOOLS_LOG_LEVEL: 'CRITICAL' });
// The seeding worker and the service must key the network alike.
process.env.NETWORK_HASH_SECRET ??= randomBytes(32).toString('base64url');
let service: Worker | undefined;
try {
  const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
  const { DynamoDBDocumentClient, BatchGetCommand, TransactWriteCommand, UpdateCommand, GetCommand } =
    await import('@aws-sdk/lib-dynamodb');
  const bare = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      endpoint: dynamoDb.endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    { marshallOptions: { removeUndefinedValues: true, allowImpreciseNumbers: true } },
  );

  // The workers start with this process's environment, DynamoDB Local's endpoint included.
  let seeded = '';
  if (NETWORK) {
    const seed: NetworkSeed = { orders: WARMUP + ROUNDS + METERED };
    const seeder = new Worker(new URL('./bench-e2e-network.ts', import.meta.url), { workerData: seed });
    const [done] = (await Promise.race([once(seeder, 'message'), once(seeder, 'error')])) as [
      { orders: number; lost: number } | Error,
    ];
    await seeder.terminate();
    if (done instanceof Error) throw done;
    seeded = `; another member first saw every order's card, device and e-mail, ${done.lost} of ${done.orders} cards with a lost fraud chargeback`;
  }
  const options: ServiceOptions = {
    profile: Boolean(process.env.CPU_PROFILE),
    checkRecorder: Boolean(process.env.BENCH_E2E_CHECK_RECORDER),
    network: NETWORK,
  };
  const worker = new Worker(new URL('./bench-e2e-service.ts', import.meta.url), { workerData: options });
  service = worker;
  const failed = once(worker, 'error').then(([error]) => Promise.reject(error as Error));
  failed.catch(() => {});
  /** Sends the service one request and waits for its answer (or its failure). */
  const ask = async (message: ServiceRequest | undefined): Promise<ServiceMessage> => {
    const answer = once(worker, 'message').then(([m]) => m as ServiceMessage);
    if (message) worker.postMessage(message);
    return Promise.race([answer, failed]);
  };
  const ready = await ask(undefined);
  if (ready.type !== 'ready') throw new Error(`the service said ${ready.type} before it was ready`);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (body: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: '127.0.0.1',
          port: ready.port,
          path: '/v1/order',
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': Buffer.byteLength(body),
            Authorization: ready.apiKey,
          },
        },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const apiTimes: number[] = [];
  const floorTimes: number[] = [];
  let apiCpu = 0;
  let clientCpu = 0;
  let floorCpu = 0;
  const roundTrips: number[] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    if (round === WARMUP && options.profile) await ask({ type: 'profile-start' });
    const address = { line1: `${round} Main St`, postalCode: '10001', country: 'US' };
    const body = JSON.stringify(orderBody(`e${round}`, Date.now() - 60_000, address));
    const cpu0 = process.threadCpuUsage();
    const t0 = performance.now();
    const status = await post(body);
    const apiMs = performance.now() - t0;
    const clientCpuUs = cpuSince(cpu0);
    if (status !== 200) throw new Error(`order answered ${status}`);
    const answer = await ask({ type: 'round' });
    if (answer.type !== 'round') throw new Error(`the service said ${answer.type} for a round`);

    const calls = answer.calls.map((call) => moveAside(call, round));
    const cpu1 = process.threadCpuUsage();
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
      apiCpu += answer.cpuUs;
      clientCpu += clientCpuUs;
      floorCpu += floorCpuUs;
      // The rate-limit call runs beside the first read: not a round trip of its own.
      roundTrips.push(calls.filter((c) => !c.rateLimit).length);
    }
  }
  // Capacity of further orders alike, metered apart from the timed rounds.
  if ((await ask({ type: 'meter-start' })).type !== 'metering') throw new Error('the service did not meter');
  for (let i = WARMUP + ROUNDS; i < WARMUP + ROUNDS + METERED; i++) {
    const address = { line1: `${i} Main St`, postalCode: '10001', country: 'US' };
    const status = await post(JSON.stringify(orderBody(`e${i}`, Date.now() - 60_000, address)));
    if (status !== 200) throw new Error(`order answered ${status}`);
  }
  const capacity = await ask({ type: 'meter-read' });
  if (capacity.type !== 'capacity') throw new Error(`the service said ${capacity.type} for its capacity`);
  const stopped = await ask({ type: 'stop' });
  if (stopped.type === 'stopped' && stopped.profileFile)
    console.log(`service profile: ${stopped.profileFile}`);
  agent.destroy();

  function send(call: RecordedCall) {
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
  const network = NETWORK
    ? `network on, reputation cache ${process.env.NETWORK_CACHE_MS ?? 'default'} ms${seeded}`
    : 'network off';
  console.log(
    `\nwarm order path vs its floor, ${ROUNDS} rounds interleaved (after ${WARMUP}), DynamoDB Local, ${network}`,
  );
  if (options.profile || options.checkRecorder) {
    console.log(
      '  (the service thread CPU includes the profiler or the recorder check: not a figure to report)',
    );
  }
  console.log(
    `  API   p50 ${ms(p(apiTimes, 0.5))}  p95 ${ms(p(apiTimes, 0.95))}  service thread CPU ${ms(apiCpu / ROUNDS / 1000)} per request (HTTP client, not counted: ${ms(clientCpu / ROUNDS / 1000)})`,
  );
  console.log(
    `  floor p50 ${ms(p(floorTimes, 0.5))}  p95 ${ms(p(floorTimes, 0.95))}  bare client CPU ${ms(floorCpu / ROUNDS / 1000)} per request`,
  );
  console.log(
    `goal 3: p50 ${ratio50.toFixed(2)}x the floor, p95 ${ratio95.toFixed(2)}x (target p50 <= ${TARGET_RATIO}x): ${ratio50 <= TARGET_RATIO ? 'met' : 'MISSED'}; service CPU beyond the floor's ${ms(cpuPerRequest)} per order (target <= ${TARGET_CPU_MS} ms): ${cpuPerRequest <= TARGET_CPU_MS ? 'met' : 'MISSED'}`,
  );
  const perOrder = (x: number) => (x / METERED).toFixed(2);
  // A round now and then also refreshes a cache (the API key's, every 30 s): the median is the path.
  const trips = p(roundTrips, 0.5);
  console.log(
    `  per order: ${trips} DynamoDB round trips at the median (mean ${(roundTrips.reduce((a, b) => a + b, 0) / ROUNDS).toFixed(2)}, most ${Math.max(...roundTrips)}; target ${TARGET_ROUND_TRIPS}): ${trips <= TARGET_ROUND_TRIPS ? 'met' : 'MISSED'}; ${perOrder(capacity.rcu)} RCU, ${perOrder(capacity.wcu)} WCU + ${perOrder(capacity.rateLimitWcu)} WCU rate limit (${METERED} orders metered after the timed rounds)`,
  );
} finally {
  await service?.terminate();
  await dynamoDb.stop();
}

function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.threadCpuUsage(start);
  return used.user + used.system;
}

/** The same call with every key moved to a floor-only partition, so conditions hold as they did. */
function moveAside(call: RecordedCall, round: number) {
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
