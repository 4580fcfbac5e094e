/**
 * The network's side of `BENCH_E2E_NETWORK=1 npm run bench -- e2e`, run once in a worker thread of
 * its own before the service starts (so its decisions leave nothing in the service's per-instance
 * reputation cache): a second member merchant orders on the very e-mails, cards and devices the bench
 * will send (first sightings), loses a fraud chargeback on every LOST_EVERY-th order, and the network
 * queue is drained, so each benched order finds a reputation item for its card, device and e-mail.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { orderBody } from './bench-orders.ts';

export interface NetworkSeed {
  /** Orders to seed, one per bench round: `e0` to `e<orders - 1>`, as bench-e2e sends them. */
  orders: number;
}

const LOST_EVERY = 4;
const DAY_MS = 86_400_000;

const port = parentPort;
if (!port) throw new Error('bench-e2e-network runs as a worker thread of bench-e2e');
const { orders } = workerData as NetworkSeed;

const { dynamoDbClient, tableName } = await import('../shared/store/client.ts');
const { ensureTable } = await import('../shared/store/ensure-table.ts');
const { createMerchant, updateMerchant } = await import('../shared/store/merchants.ts');
const { saveMembership } = await import('../shared/use-cases/network-membership.ts');
const { drainNetworkQueue } = await import('../shared/use-cases/network-worker.ts');
const { createLocalServer } = await import('../local/http-adapter.ts');

await ensureTable(dynamoDbClient, tableName);
const { apiKey, merchantId } = await createMerchant({
  name: 'bench-e2e-network',
  accountUpdatesEnabled: false,
  environment: 'sandbox',
});
await updateMerchant(merchantId, { rateLimit: { perSecond: 1_000, burst: 1_000 } });
await saveMembership(merchantId, true, { keyId: 'bench', keyName: 'bench-e2e' }, Date.now());
const server = createLocalServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const post = async (path: string, body: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: apiKey },
    body: JSON.stringify(body),
  });
  if (response.status !== 200)
    throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
};
for (let round = 0; round < orders; round++) {
  const address = { line1: `${round} Main St`, postalCode: '10001', country: 'US' };
  await post('/v1/order', orderBody(`e${round}`, Date.now() - 10 * DAY_MS, address));
}
// The sightings recorded as of two days ago: a cause counts a day after its identity's sighting.
await drainNetworkQueue({ now: Date.now() - 2 * DAY_MS });
let lost = 0;
for (let round = 0; round < orders; round += LOST_EVERY) {
  const dispute = {
    disputeId: `bench-dispute-${round}`,
    disputeType: 'CHARGEBACK',
    disputeReason: 'FRAUD',
    disputeStatus: 'LOST',
    disputeAmount: 49.99,
    timestamp: Date.now() - 3 * DAY_MS,
  };
  await post(`/v1/order/dispute/order-e${round}`, { dispute: [dispute] });
  lost++;
}
await drainNetworkQueue();
server.closeAllConnections();
server.close();
port.postMessage({ orders, lost });
