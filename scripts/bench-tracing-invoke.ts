/**
 * The warm half of `npm run bench -- tracing`, in a process of its own per path and round, as the
 * Lambda runtime would run a built order function with active tracing: `node
 * scripts/bench-tracing-invoke.ts <count> <file to import first>...` imports the files (a layer's
 * wrapper, then index.mjs), then invokes the handler `count` times, each with a fresh sampled trace
 * header (`_X_AMZN_TRACE_ID`, set per invocation as the runtime does), and prints per invocation
 * the header it used, its wall time and the CPU of the thread that ran it (garbage-collector and
 * I/O helper threads left out: they add noise on a busy machine, not the path's work), as JSON.
 */
import { randomBytes } from 'node:crypto';
import { lambdaContext } from '../local/api-gateway-event.ts';
import { jsonPostEvent } from '../test/support/lambda-events.ts';
import { orderBody } from './bench-orders.ts';

export interface Invocation {
  root: string;
  parent: string;
  wallMs: number;
  cpuMs: number;
}

const [count, ...files] = process.argv.slice(2);
const apiKey = process.env.BENCH_API_KEY;
if (!count || files.length === 0 || !apiKey)
  throw new Error('usage: BENCH_API_KEY=... node scripts/bench-tracing-invoke.ts <count> <file>...');

let handler: ((event: unknown, context: unknown) => Promise<{ statusCode: number }>) | undefined;
for (const file of files) ({ handler } = (await import(file)) as { handler: typeof handler });
if (!handler) throw new Error(`${files.at(-1)} exports no handler`);

const run = randomBytes(4).toString('hex');
const invocations: Invocation[] = [];
for (let i = 0; i < Number(count); i++) {
  const root = `1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
  const parent = randomBytes(8).toString('hex');
  process.env._X_AMZN_TRACE_ID = `Root=${root};Parent=${parent};Sampled=1`;
  const address = { line1: `${run}-${i} Main St`, postalCode: '10001', country: 'US' };
  const event = jsonPostEvent('/v1/order', orderBody(`${run}-${i}`, Date.now() - 60_000, address), apiKey);
  const cpu = process.threadCpuUsage();
  const start = performance.now();
  const result = await handler(event, lambdaContext('order'));
  const wallMs = performance.now() - start;
  const used = process.threadCpuUsage(cpu);
  if (result.statusCode !== 200) throw new Error(`order answered ${result.statusCode}`);
  invocations.push({ root, parent, wallMs, cpuMs: (used.user + used.system) / 1000 });
}
process.stdout.write(JSON.stringify(invocations));
