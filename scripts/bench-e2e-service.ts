/**
 * The service side of `npm run bench -- e2e`, run in a worker thread of its own so its CPU is only
 * the service's: the local API (the real handlers behind the API Gateway adapter) on a port of its
 * own, and a recorder of the DynamoDB calls the handler makes. The bench thread asks for each
 * round's calls by message; the CPU this thread spent since the previous answer (the request, the
 * recorder's push of a reference, the message's arrival) is measured before the calls are copied
 * into the answer, and the copy is left out of the next round's figure.
 */
import { isDeepStrictEqual } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';

export interface ServiceOptions {
  /** Write a .cpuprofile of this thread between `profile-start` and `profile-stop`. */
  profile: boolean;
  /** Also deep-copy every input when recorded and fail if the service changed it after its call. */
  checkRecorder: boolean;
  /** The bench merchant is a member of the opt-in network (its orders read reputation items). */
  network: boolean;
}

export type ServiceRequest =
  | { type: 'round' }
  | { type: 'profile-start' }
  | { type: 'meter-start' }
  | { type: 'meter-read' }
  | { type: 'stop' };

export interface RecordedCall {
  command: string;
  input: Record<string, unknown>;
}

export type ServiceMessage =
  | { type: 'ready'; port: number; apiKey: string }
  | { type: 'round'; cpuUs: number; calls: RecordedCall[] }
  | { type: 'profiling' }
  | { type: 'metering' }
  | { type: 'capacity'; wcu: number; rcu: number; rateLimitWcu: number }
  | { type: 'stopped'; profileFile: string | undefined };

const port = parentPort;
if (!port) throw new Error('bench-e2e-service runs as a worker thread of bench-e2e');
const options = workerData as ServiceOptions;

const { dynamoDbClient, tableName } = await import('../shared/store/client.ts');
const { ensureTable } = await import('../shared/store/ensure-table.ts');
const { createMerchant, updateMerchant } = await import('../shared/store/merchants.ts');
const { createLocalServer } = await import('../local/http-adapter.ts');
const { saveMembership } = await import('../shared/use-cases/network-membership.ts');
const { installCapacityMeter } = await import('./bench-meter.ts');

// Set up here, so the bench thread never loads the service's modules (nor the Powertools and X-Ray
// hooks they install): its CPU stays the bare client's.
await ensureTable(dynamoDbClient, tableName);
const { apiKey, merchantId } = await createMerchant({
  name: 'bench-e2e',
  accountUpdatesEnabled: false,
  environment: 'sandbox',
});
// Room for every round: the limit is not what is measured (its token call is, when made).
await updateMerchant(merchantId, { rateLimit: { perSecond: 1_000, burst: 1_000 } });
if (options.network) {
  await saveMembership(merchantId, true, { keyId: 'bench', keyName: 'bench-e2e' }, Date.now());
}
// Off during the timed rounds (sizing written items adds reads): on for the metered orders after them.
const meter = await installCapacityMeter(dynamoDbClient, process.env.DYNAMODB_ENDPOINT ?? '', tableName);
meter.metering = false;

// By reference: the store builds a fresh input per call and does not touch it afterwards (checked
// with BENCH_E2E_CHECK_RECORDER=1), so a deep copy per call would only add the bench's CPU.
let calls: RecordedCall[] = [];
let copies: RecordedCall[] = [];
dynamoDbClient.middlewareStack.add(
  (next, context) => async (args) => {
    const call = { command: context.commandName ?? '', input: args.input as Record<string, unknown> };
    calls.push(call);
    if (options.checkRecorder) copies.push(structuredClone(call));
    return next(args);
  },
  { step: 'initialize', priority: 'low', name: 'benchRecorder' },
);

const server = createLocalServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

let session: import('node:inspector/promises').Session | undefined;
let cpuMark = process.threadCpuUsage();
port.on('message', (request: ServiceRequest) => {
  switch (request.type) {
    case 'round': {
      const used = process.threadCpuUsage(cpuMark);
      const round = calls;
      // Both sides copied the same way (a copy turns a Buffer into a plain Uint8Array).
      if (options.checkRecorder && !isDeepStrictEqual(structuredClone(round), copies)) {
        throw new Error('the service changed a DynamoDB input after sending it: record copies');
      }
      calls = [];
      copies = [];
      post({ type: 'round', cpuUs: used.user + used.system, calls: round });
      cpuMark = process.threadCpuUsage();
      return;
    }
    case 'profile-start':
      void startProfile().then(() => post({ type: 'profiling' }));
      return;
    case 'meter-start':
      meter.reset();
      meter.metering = true;
      post({ type: 'metering' });
      return;
    case 'meter-read':
      meter.metering = false;
      calls = [];
      copies = [];
      post({ type: 'capacity', wcu: meter.wcu, rcu: meter.rcu, rateLimitWcu: meter.rateLimitWcu });
      return;
    case 'stop':
      void stop().then((profileFile) => post({ type: 'stopped', profileFile }));
      return;
  }
});
post({ type: 'ready', port: (server.address() as { port: number }).port, apiKey });

async function startProfile(): Promise<void> {
  if (!options.profile) return;
  const { Session } = await import('node:inspector/promises');
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  cpuMark = process.threadCpuUsage();
}

/** Closes the server; writes the profile, if one was taken, and says where. */
async function stop(): Promise<string | undefined> {
  server.closeAllConnections();
  server.close();
  if (!session) return undefined;
  const { profile } = await session.post('Profiler.stop');
  const file = 'bench-e2e.cpuprofile';
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, JSON.stringify(profile));
  return file;
}

function post(message: ServiceMessage): void {
  port?.postMessage(message);
}
