/**
 * Scale and cost figures (`npm run bench -- scale`; `npm run bench` runs it too), in its own process
 * so the store client is built for DynamoDB Local:
 * 1. capacity per order at any history: orders replayed through the local API on one shared shipping
 *    address, every other identity fresh; WCU/RCU of the order that finds 0, 100, 1,000 and 10,000
 *    earlier orders on the address, from ReturnConsumedCapacity, and the address item's size;
 * 2. hot partitions: a burst of decisions of one merchant, writes counted per partition key of the
 *    table and of GSI1, the busiest key's share scaled to 20,000 decisions/s;
 * 3. cold start: the order function bundled with the CDK's esbuild settings beside a bare bundle
 *    that imports only the DynamoDB document client, sizes and 15 fresh imports of each, interleaved.
 * A benchmark to read, never a timed test.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { build } from 'esbuild';
import { startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment } from '../local/local-env.ts';

const only = process.argv[2];
const ORDERS = Number(process.env.BENCH_SCALE_ORDERS ?? 10_000);
const CHECKPOINTS = [0, 100, 1_000, 10_000].filter((n) => n < ORDERS || n === ORDERS);
const BURST = Number(process.env.BENCH_SCALE_BURST ?? 1_000);
const TARGET_RATE = 20_000;
const TARGET_WRITES_PER_KEY = 500;
const TARGET_WCU = 16;
const TARGET_ITEM_BYTES = 1_024;
const TARGET_BUNDLE_BYTES = 500 * 1_024;
const TARGET_IMPORT_RATIO = 1.4;
const IMPORTS = 15;


async function storeFigures(): Promise<void> {
  const dynamoDb = await startDynamoDbLocal({});
  applyLocalEnvironment(dynamoDb.endpoint, { POWERTOOLS_LOG_LEVEL: 'CRITICAL' });
  try {
    const { dynamoDbClient, tableName, documentClient } = await import('../shared/store/client.ts');
    const { ensureTable } = await import('../shared/store/ensure-table.ts');
    const { createMerchant, updateMerchant } = await import('../shared/store/merchants.ts');
    const { createLocalServer } = await import('../local/http-adapter.ts');
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { marshall } = await import('@aws-sdk/util-dynamodb');
    const { identity } = await import('../shared/identity/identities.ts');
    const { normalizeAddress } = await import('../shared/identity/identities.ts');
    const { keys } = await import('../shared/store/keys.ts');
    await ensureTable(dynamoDbClient, tableName);

    const meter = new Meter();
    dynamoDbClient.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        meter.countWrites(context.commandName ?? '', input);
        if (CAPACITY_COMMANDS.has(context.commandName ?? '')) input.ReturnConsumedCapacity = 'TOTAL';
        const result = await next(args);
        meter.addCapacity(
          READ_COMMANDS.has(context.commandName ?? ''),
          (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity,
        );
        return result;
      },
      { step: 'initialize', priority: 'low', name: 'benchMeter' },
    );

    const { merchantId, apiKey } = await createMerchant({
      name: 'bench-scale',
      accountUpdatesEnabled: false,
      environment: 'sandbox',
    });
    await updateMerchant(merchantId, { rateLimit: { perSecond: TARGET_RATE, burst: TARGET_RATE } });
    const server = createLocalServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const post = async (body: unknown) => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/order`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: apiKey },
        body: JSON.stringify(body),
      });
      if (response.status !== 200) throw new Error(`order answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    };
    try {
      if (!only || only === 'capacity') {
        const shared = { line1: '1 Shared Office Park', postalCode: '10001', country: 'US' };
        const addressKey = keys.identity(
          merchantId,
          'address',
          identity('address', normalizeAddress(shared)!).digest,
        );
        const span = 364 * 86_400_000;
        const start = Date.now() - span - 60_000;
        const rows: string[] = [];
        const figures: { wcu: number; rcu: number; bytes: number }[] = [];
        for (let i = 0; i < ORDERS; i++) {
          const body = orderBody(`b${i}`, start + Math.floor((span * i) / ORDERS), shared);
          const checkpoint = CHECKPOINTS.includes(i) || i === ORDERS - 1;
          if (checkpoint) meter.reset();
          await post(body);
          if (!checkpoint) continue;
          const { Item } = await documentClient.send(new GetCommand({ TableName: tableName, Key: addressKey }));
          const bytes = Item ? itemBytes(marshall(Item, { removeUndefinedValues: true })) : 0;
          figures.push({ wcu: meter.wcu, rcu: meter.rcu, bytes });
          rows.push(
            `  ${String(i === ORDERS - 1 ? ORDERS : i).padStart(6)} earlier orders: ${meter.wcu.toFixed(1)} WCU + ${meter.rcu.toFixed(1)} RCU, address item ${bytes} B`,
          );
        }
        const maxWcu = Math.max(...figures.map((f) => f.wcu));
        const maxBytes = Math.max(...figures.map((f) => f.bytes));
        console.log(
          `\ncapacity per order, ${ORDERS} orders on one shipping address (5 identities each, the rest fresh), ReturnConsumedCapacity`,
        );
        for (const row of rows) console.log(row);
        console.log(
          `goal 1: max ${maxWcu.toFixed(1)} WCU per order (target <= ${TARGET_WCU}): ${verdict(maxWcu <= TARGET_WCU)}; largest identity item ${maxBytes} B (target <= ${TARGET_ITEM_BYTES}): ${verdict(maxBytes <= TARGET_ITEM_BYTES)}`,
        );
      }
      if (!only || only === 'partitions') {
        meter.reset();
        const now = Date.now() - 60_000;
        let next = 0;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (next < BURST) {
              const i = next++;
              await post(orderBody(`p${i}`, now, { line1: `${i} Burst St`, postalCode: '10001', country: 'US' }));
            }
          }),
        );
        const busiest = meter.busiest();
        const perSecond = (busiest.writes / BURST) * TARGET_RATE;
        console.log(
          `\nhot partitions, burst of ${BURST} orders of one merchant: ${meter.keyCount} partition keys written (table + GSI1)`,
        );
        console.log(`  busiest: ${busiest.key} (${busiest.writes} writes)`);
        console.log(
          `goal 2: ${perSecond.toFixed(0)} writes/s on the busiest key at ${TARGET_RATE} decisions/s (target <= ${TARGET_WRITES_PER_KEY}): ${verdict(perSecond <= TARGET_WRITES_PER_KEY)}`,
        );
      }
    } finally {
      server.closeAllConnections();
      server.close();
    }
  } finally {
    await dynamoDb.stop();
  }
}

const READ_COMMANDS = new Set(['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand', 'TransactGetItemsCommand']);
const CAPACITY_COMMANDS = new Set([
  'BatchGetItemCommand',
  'GetItemCommand',
  'QueryCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'TransactGetItemsCommand',
]);

type AttributeValue = Record<string, unknown>;

/** Capacity consumed and writes per partition key (table PK, GSI1PK), as sent to DynamoDB. */
class Meter {
  wcu = 0;
  rcu = 0;
  private readonly writes = new Map<string, number>();

  reset(): void {
    this.wcu = 0;
    this.rcu = 0;
    this.writes.clear();
  }

  addCapacity(read: boolean, consumed: unknown): void {
    const list = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as ConsumedCapacity[];
    // DynamoDB Local reports the total only: the command says whether it read or wrote.
    for (const c of list) {
      if (read) this.rcu += c.ReadCapacityUnits ?? c.CapacityUnits ?? 0;
      else this.wcu += c.WriteCapacityUnits ?? c.CapacityUnits ?? 0;
    }
  }

  countWrites(command: string, input: Record<string, unknown>): void {
    const items: { Key?: AttributeValue; Item?: AttributeValue }[] = [];
    if (command === 'TransactWriteItemsCommand') {
      for (const t of input.TransactItems as Record<string, { Key?: AttributeValue; Item?: AttributeValue }>[]) {
        const write = t.Put ?? t.Update ?? t.Delete;
        if (write) items.push(write);
      }
    } else if (command === 'PutItemCommand' || command === 'UpdateItemCommand' || command === 'DeleteItemCommand') {
      items.push(input as { Key?: AttributeValue; Item?: AttributeValue });
    }
    for (const write of items) {
      const pk = stringOf((write.Item ?? write.Key)?.PK);
      if (pk) this.writes.set(`table ${pk}`, (this.writes.get(`table ${pk}`) ?? 0) + 1);
      const gsi = stringOf(write.Item?.GSI1PK);
      if (gsi) this.writes.set(`GSI1 ${gsi}`, (this.writes.get(`GSI1 ${gsi}`) ?? 0) + 1);
    }
  }

  get keyCount(): number {
    return this.writes.size;
  }

  busiest(): { key: string; writes: number } {
    let best = { key: '-', writes: 0 };
    for (const [key, writes] of this.writes) if (writes > best.writes) best = { key, writes };
    return best;
  }
}

/** A key attribute as the document client or the low-level client carries it. */
const stringOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : (value as { S?: string } | undefined)?.S;

/** DynamoDB's item size: attribute names plus values (numbers ~1 byte per 2 digits + 1). */
function itemBytes(item: Record<string, unknown>): number {
  let total = 0;
  for (const [name, value] of Object.entries(item)) total += Buffer.byteLength(name) + valueBytes(value);
  return total;
}

function valueBytes(value: unknown): number {
  const v = value as Record<string, unknown>;
  if ('S' in v) return Buffer.byteLength(String(v.S));
  if ('N' in v) return numberBytes(String(v.N));
  if ('B' in v) return (v.B as Uint8Array).length;
  if ('BOOL' in v || 'NULL' in v) return 1;
  if ('SS' in v) return (v.SS as string[]).reduce((s, x) => s + Buffer.byteLength(x), 0);
  if ('NS' in v) return (v.NS as string[]).reduce((s, x) => s + numberBytes(x), 0);
  if ('BS' in v) return (v.BS as Uint8Array[]).reduce((s, x) => s + x.length, 0);
  if ('L' in v) return 3 + (v.L as unknown[]).reduce<number>((s, x) => s + 1 + valueBytes(x), 0);
  if ('M' in v) return 3 + itemBytes(v.M as Record<string, unknown>) + Object.keys(v.M as object).length;
  return 0;
}

function numberBytes(text: string): number {
  const digits = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

function orderBody(id: string, at: number, address: { line1: string; postalCode: string; country: string }) {
  return {
    intent: 'Order',
    state: 'PAID',
    providerOrderId: `order-${id}`,
    providerCartId: `cart-${id}`,
    totalPrice: { currencyCode: '840', amount: '49.99' },
    lineItems: [
      {
        identifiers: [{ identifierType: 'SKU', identifier: 'sku-1' }],
        title: 'Item',
        category: 'Apparel',
        quantity: '1',
        unitPrice: { currencyCode: '840', amount: '49.99' },
      },
    ],
    customer: {
      firstName: 'Bench',
      lastName: 'Shopper',
      contactInformation: [
        { contactType: 'EMail', address: `shopper-${id}@example.com` },
        { contactType: 'ContactAddress', addressType: 'Shipping', address },
      ],
    },
    paymentInfo: [
      { instrument: 'CC-A', BIN: String(400000 + (hash(id) % 99999)), last4: String(1000 + (hash(`${id}l`) % 8999)), expiry: '12/29' },
    ],
    deviceFingerprints: [{ deviceIdentifier: `device-${id}` }],
    timestamp: String(at),
  };
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
  return h;
}

const verdict = (met: boolean) => (met ? 'met' : 'MISSED');

async function bundleFigures(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-bundle-'));
  const bare = join(dir, 'bare.ts');
  writeFileSync(
    bare,
    "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nimport { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\nexport const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));\nexport const handler = async () => client;\n",
  );
  const { CREATE_REQUIRE_BANNER } = await import('../lib/api-function.ts');
  // The CDK's NodejsFunction bundling (lib/api-function.ts), run with the same esbuild options.
  const bundle = async (entry: string, out: string) => {
    await build({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node24',
      mainFields: ['module', 'main'],
      banner: { js: CREATE_REQUIRE_BANNER },
      minify: true,
      keepNames: true,
      sourcemap: true,
      sourcesContent: false,
      nodePaths: [join(process.cwd(), 'node_modules')],
      logLevel: 'warning',
    });
    return statSync(out).size;
  };
  const orderOut = join(dir, 'order.mjs');
  const bareOut = join(dir, 'bare.mjs');
  const orderBytes = await bundle('functions/order.ts', orderOut);
  const bareBytes = await bundle(bare, bareOut);
  const env = {
    ...process.env,
    TABLE_NAME: 'bench',
    AWS_REGION: 'us-east-1',
    POWERTOOLS_SERVICE_NAME: 'abuse-decision',
    POWERTOOLS_METRICS_NAMESPACE: 'AbuseDecision',
  };
  const importMs = (file: string) =>
    Number(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const t=performance.now();await import(${JSON.stringify(file)});console.log(performance.now()-t)`,
        ],
        { env, encoding: 'utf8' },
      ).trim(),
    );
  const orderTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let i = 0; i < IMPORTS; i++) {
    orderTimes.push(importMs(orderOut));
    bareTimes.push(importMs(bareOut));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const ratio = median(orderTimes) / median(bareTimes);
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`;
  console.log(`\ncold start, CDK esbuild settings, ${IMPORTS} fresh imports each, interleaved (median)`);
  console.log(`  order bundle ${kb(orderBytes)}, import ${median(orderTimes).toFixed(1)} ms`);
  console.log(`  bare document-client bundle ${kb(bareBytes)}, import ${median(bareTimes).toFixed(1)} ms`);
  console.log(
    `goal 4: bundle ${kb(orderBytes)} (target <= ${kb(TARGET_BUNDLE_BYTES)}): ${verdict(orderBytes <= TARGET_BUNDLE_BYTES)}; import ${ratio.toFixed(2)}x bare (target <= ${TARGET_IMPORT_RATIO}x): ${verdict(ratio <= TARGET_IMPORT_RATIO)}`,
  );
}

if (!only || only === 'capacity' || only === 'partitions') await storeFigures();
if (!only || only === 'bundle') await bundleFigures();
