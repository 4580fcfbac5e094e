/**
 * The flood of `npm run bench -- key-flood`, in a process of its own so its CPU is not the server's:
 * CONCURRENCY connections from another loopback address (127.0.0.2, so a limit per address could tell
 * it from the merchant) each send the next bad request as soon as the last is answered, which keeps
 * the server at its capacity. Bad requests take turns: no Authorization header, a malformed key, and
 * well-formed keys no merchant has (from a pool, so they repeat as a scanner's do; FLOOD_FRESH=1 makes
 * every one new). Told `{ start: rate }` and `stop` by its parent; answers `stop` with what it sent.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

const [baseUrl] = process.argv.slice(2);
if (!baseUrl || !process.send) throw new Error('run by scripts/bench-key-flood.ts');
const CONCURRENCY = Number(process.env.FLOOD_CONCURRENCY ?? 16);
const POOL = 1_000;
const FRESH = process.env.FLOOD_FRESH === '1';
const { hostname, port } = new URL(baseUrl);

const base62 = (n: number) =>
  randomBytes(n * 2)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, '')
    .slice(0, n);
const pool = Array.from({ length: POOL }, () => `pk_test_${base62(40)}`);

let sent = 0;
let running = false;
const statuses = new Map<number, number>();

function authorization(n: number): string | undefined {
  switch (n % 4) {
    case 0:
      return undefined;
    case 1:
      return `pk_test_${base62(12)}!`;
    default:
      return FRESH ? `pk_test_${base62(40)}` : pool[n % POOL];
  }
}

/** The request's bytes, written whole: a raw socket keeps the flood's own cost far below the server's. */
function requestBytes(key: string | undefined): string {
  const auth = key ? `Authorization: ${key}\r\n` : '';
  return `POST /v1/order HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n${auth}Content-Length: 2\r\n\r\n{}`;
}

/** One keep-alive connection: the next request as soon as the last answer has fully arrived. */
async function lane(): Promise<void> {
  const socket: Socket = connect({ host: hostname, port: Number(port), localAddress: '127.0.0.2' });
  socket.setNoDelay(true);
  let buffered = Buffer.alloc(0);
  let answered: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    for (;;) {
      const headEnd = buffered.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = buffered.subarray(0, headEnd).toString('latin1');
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < headEnd + 4 + length) return;
      const status = Number(head.slice(9, 12));
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      buffered = buffered.subarray(headEnd + 4 + length);
      answered?.();
    }
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  // Paced to `rate` requests a second over all lanes when given; flat out otherwise.
  const gapMs = rate > 0 ? (1000 * CONCURRENCY) / rate : 0;
  let next = performance.now() + Math.random() * gapMs;
  while (running) {
    if (gapMs > 0) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      next += gapMs;
    }
    await new Promise<void>((resolve) => {
      answered = resolve;
      socket.write(requestBytes(authorization(sent++)));
    });
  }
  socket.destroy();
}

let lanes: Promise<void>[] = [];
let startedAt = 0;
let rate = 0;
process.on('message', async (message: { start: number } | 'stop' | 'exit') => {
  if (typeof message === 'object') {
    rate = message.start;
    running = true;
    statuses.clear();
    startedAt = performance.now();
    lanes = Array.from({ length: CONCURRENCY }, lane);
    process.send?.('started');
  } else if (message === 'stop') {
    running = false;
    await Promise.all(lanes);
    const seconds = (performance.now() - startedAt) / 1000;
    const answered = [...statuses.values()].reduce((a, b) => a + b, 0);
    process.send?.({ answered, seconds, statuses: Object.fromEntries(statuses) });
  } else {
    process.exit(0);
  }
});
process.send('ready');
