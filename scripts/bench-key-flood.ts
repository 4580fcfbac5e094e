/**
 * `npm run bench -- key-flood`: a good merchant's orders while a flood of bad keys as large as the
 * local server's capacity (the orders a second it answers, measured first) arrives from another
 * process and loopback address (bench-key-flood-client.ts), beside
 * the same orders with no flood, in alternating rounds on one in-memory DynamoDB Local. Prints both
 * p50s, their ratio (goal ≤ 1.5×), that every order was answered 200, and what the flood got.
 * A benchmark to read, never a timed test.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { startInMemoryApi } from '../local/in-memory-api.ts';
import { orderBody } from './bench-orders.ts';

const ROUNDS = Number(process.env.BENCH_FLOOD_ROUNDS ?? 10);
const ORDERS_PER_ROUND = Number(process.env.BENCH_FLOOD_ORDERS ?? 40);
const WARMUP = 30;
const GOAL_RATIO = 1.5;
const CAPACITY_LANES = 8;
const CAPACITY_SECONDS = 3;
/** BENCH_FLOOD_FLAT_OUT=1: the flood as fast as the server answers it, not at its order capacity. */
const FLAT_OUT = process.env.BENCH_FLOOD_FLAT_OUT === '1';

interface FloodReport {
  answered: number;
  seconds: number;
  statuses: Record<string, number>;
}

const { baseUrl, stop } = await startInMemoryApi();
const flood = fork(new URL('./bench-key-flood-client.ts', import.meta.url), [baseUrl], {
  execPath: process.execPath,
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
try {
  await once(flood, 'message');
  const { createMerchant } = await import('../shared/store/merchants.ts');
  const merchant = await createMerchant({
    name: 'bench',
    accountUpdatesEnabled: false,
    environment: 'sandbox',
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let sequence = 0;
  const statuses = new Map<number, number>();

  const timedOrder = (): Promise<number> => {
    const id = `flood-${++sequence}`;
    const body = JSON.stringify(
      orderBody(id, Date.now(), { line1: `${sequence} Main St`, postalCode: '10001', country: 'US' }),
    );
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const req = request(
        `${baseUrl}/v1/order`,
        {
          method: 'POST',
          agent,
          headers: { Authorization: merchant.apiKey, 'Content-Type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            statuses.set(res.statusCode ?? 0, (statuses.get(res.statusCode ?? 0) ?? 0) + 1);
            resolve(performance.now() - start);
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
  const orders = async (n: number) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) times.push(await timedOrder());
    return times;
  };
  const tell = async <T>(message: string | { start: number }): Promise<T> => {
    flood.send(message);
    return (await once(flood, 'message'))[0] as T;
  };

  await orders(WARMUP);
  // The server's capacity: orders a second with CAPACITY_LANES sent at once, for CAPACITY_SECONDS.
  const capacityStart = performance.now();
  let capacityOrders = 0;
  await Promise.all(
    Array.from({ length: CAPACITY_LANES }, async () => {
      while (performance.now() - capacityStart < CAPACITY_SECONDS * 1000) {
        await timedOrder();
        capacityOrders++;
      }
    }),
  );
  const capacity = Math.round(capacityOrders / ((performance.now() - capacityStart) / 1000));
  const floodRate = FLAT_OUT ? 0 : capacity;
  statuses.clear();
  const quiet: number[] = [];
  const flooded: number[] = [];
  const reports: FloodReport[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    quiet.push(...(await orders(ORDERS_PER_ROUND)));
    await tell({ start: floodRate });
    // Let the flood fill the server before timing under it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    flooded.push(...(await orders(ORDERS_PER_ROUND)));
    reports.push(await tell<FloodReport>('stop'));
  }
  flood.send('exit');

  const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const ms = (v: number) => `${v.toFixed(2)} ms`;
  const floodAnswered = reports.reduce((sum, r) => sum + r.answered, 0);
  const floodSeconds = reports.reduce((sum, r) => sum + r.seconds, 0);
  const floodStatuses: Record<string, number> = {};
  for (const r of reports) {
    for (const [status, n] of Object.entries(r.statuses))
      floodStatuses[status] = (floodStatuses[status] ?? 0) + n;
  }
  const ratio = p50(flooded) / p50(quiet);
  const ok = statuses.get(200) ?? 0;
  console.log(
    `\na good merchant's orders with and without a flood of bad keys (${ROUNDS} rounds of ${ORDERS_PER_ROUND} each, alternating)`,
  );
  console.log(
    `server capacity: ${capacity} orders / s (${CAPACITY_LANES} at once); flood asked: ${FLAT_OUT ? 'flat out' : `${floodRate} / s`}`,
  );
  console.log(
    `flood: ${floodAnswered} requests answered in ${floodSeconds.toFixed(1)} s (${Math.round(floodAnswered / floodSeconds)} / s), by status ${JSON.stringify(floodStatuses)}`,
  );
  console.log(`orders answered 200: ${ok} of ${quiet.length + flooded.length}`);
  console.log(
    `order p50 without the flood: ${ms(p50(quiet))}, under it: ${ms(p50(flooded))} (${ratio.toFixed(2)}×)`,
  );
  console.log(
    `goal ≤ ${GOAL_RATIO}× and every order answered: ${ratio <= GOAL_RATIO && ok === quiet.length + flooded.length ? 'met' : 'MISSED'}`,
  );
} finally {
  flood.kill();
  await stop();
}
