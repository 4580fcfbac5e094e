/**
 * `npm run fuzz`: FUZZ_REQUESTS (default 100,000) generated hostile requests against the local
 * server (DynamoDB Local in memory and the API Gateway adapter, both in this process on free
 * ports), spread over the seven endpoints, FUZZ_CONCURRENCY (default 8) at a time. The cases are
 * those of the property suites (test/support/request-arbitraries.ts), seeded by FUZZ_SEED, each
 * made from an endpoint's ordinary valid request or, one in FUZZ_WIDEST_EVERY (default 50), from
 * its widest (test/support/widest-events.ts).
 * Prints the count of answers by status and exits 1 on any 5xx, any answer without the envelope
 * and X-Request-Id, any error code outside the catalog (shared/errors.ts), or any request left
 * without an answer.
 */
import fc from 'fast-check';
import { freePort, JavaMissingError, startDynamoDbLocal } from '../local/dynamodb-local.ts';
import { applyLocalEnvironment } from '../local/local-env.ts';
import { ERROR_CATALOG } from '../shared/errors.ts';

const total = Number(process.env.FUZZ_REQUESTS ?? 100_000);
const concurrency = Number(process.env.FUZZ_CONCURRENCY ?? 8);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
/** Every this many requests, one goes to a wrong method or an unknown path (the 404/405 handler). */
const ROUTE_NOISE_EVERY = 25;
/**
 * Every this many requests (FUZZ_WIDEST_EVERY), one starts from an endpoint's widest valid request
 * (test/support/widest-events.ts: every list at its bound, text up to the body limit) instead.
 */
const WIDEST_EVERY = Number(process.env.FUZZ_WIDEST_EVERY ?? 50);
const WIDEST_OFFSET = 7;
const BATCH = 1_000;
const CATALOG = new Set<string>(Object.keys(ERROR_CATALOG));

let dynamoDb: Awaited<ReturnType<typeof startDynamoDbLocal>>;
try {
  dynamoDb = await startDynamoDbLocal({ port: await freePort() });
} catch (error) {
  console.error(
    error instanceof JavaMissingError ? error.message : `DynamoDB Local: ${(error as Error).message}`,
  );
  process.exit(1);
}
applyLocalEnvironment(dynamoDb.endpoint, { POWERTOOLS_LOG_LEVEL: 'CRITICAL' });

try {
  const { ensureTable } = await import('../shared/store/ensure-table.ts');
  const { dynamoDbClient, tableName } = await import('../shared/store/client.ts');
  const { updateMerchant } = await import('../shared/store/merchants.ts');
  const { newMerchant, startTestApi } = await import('../test/support/api.ts');
  const { prepareFixtures } = await import('../test/support/endpoint-fixtures.ts');
  const { fuzzCase, toRequest } = await import('../test/support/request-arbitraries.ts');
  const { prepareWidestFixtures } = await import('../test/support/widest-events.ts');

  await ensureTable(dynamoDbClient, tableName);
  const api = await startTestApi();
  const merchant = await newMerchant({ accountUpdatesEnabled: true });
  // Far above this run's rate, so every request reaches its endpoint rather than the limiter.
  await updateMerchant(merchant.merchantId, { rateLimit: { perSecond: 1_000_000, burst: 2_000_000 } });
  const fixtures = await prepareFixtures(api, merchant.apiKey);
  const widest = await prepareWidestFixtures(api, merchant.apiKey);

  const byStatus = new Map<number, number>();
  const byEndpoint = new Map<string, number>();
  const problems: string[] = [];
  const started = Date.now();
  let sent = 0;
  let lastReport = started;

  console.log(`fuzz: ${total} requests, concurrency ${concurrency}, seed ${seed}, API ${api.baseUrl}`);
  for (let offset = 0; offset < total; offset += BATCH) {
    const cases = fc.sample(fuzzCase, { numRuns: Math.min(BATCH, total - offset), seed: seed + offset });
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < cases.length; i = next++) {
        const n = offset + i;
        const fixture =
          n % WIDEST_EVERY === WIDEST_OFFSET % WIDEST_EVERY
            ? widest[Math.floor(n / WIDEST_EVERY) % widest.length]!
            : fixtures[n % fixtures.length]!;
        const request = toRequest(cases[i]!, fixture, merchant.apiKey);
        if (n % ROUTE_NOISE_EVERY === 0) {
          request.method = ['GET', 'PUT', 'DELETE', 'PATCH'][(n / ROUTE_NOISE_EVERY) % 4]!;
        } else if (n % ROUTE_NOISE_EVERY === 1) {
          request.path = `${request.path}/${encodeURIComponent(String(n))}`;
        }
        byEndpoint.set(fixture.endpoint, (byEndpoint.get(fixture.endpoint) ?? 0) + 1);
        sent++;
        const response = await api
          .request(request.method, request.path, {
            headers: request.headers,
            ...(request.method === 'GET' ? {} : { rawBody: request.rawBody }),
          })
          .catch((error: Error) => {
            // No answer at all (a reset connection) is a failure too; status 0 counts it.
            problems.push(
              `no answer (${(error.cause as Error | undefined)?.message ?? error.message}): ${describe(request)}`,
            );
            return undefined;
          });
        const status = response?.status ?? 0;
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        const problem = response && problemOf(response);
        if (problem)
          problems.push(`${problem}: ${describe(request)} -> ${status} ${response.text.slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (Date.now() - lastReport > 10_000 || offset + BATCH >= total) {
      lastReport = Date.now();
      const seconds = (lastReport - started) / 1000;
      const heapMb = Math.round(process.memoryUsage().heapUsed / 1e6);
      console.log(
        `  ${sent} sent in ${seconds.toFixed(0)} s (${(sent / seconds).toFixed(0)}/s), heap ${heapMb} MB`,
      );
    }
  }

  const seconds = (Date.now() - started) / 1000;
  const serverErrors = [...byStatus].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  console.log(
    `\nfuzz: ${sent} requests in ${seconds.toFixed(1)} s (${(sent / seconds).toFixed(0)}/s), seed ${seed}`,
  );
  console.log('by status:');
  for (const [status, n] of [...byStatus].sort(([a], [b]) => a - b)) console.log(`  ${status}  ${n}`);
  console.log('by endpoint:');
  for (const [endpoint, n] of byEndpoint) console.log(`  ${endpoint}  ${n}`);
  console.log(`5xx: ${serverErrors}; answers that break the contract (5xx included): ${problems.length}`);
  for (const problem of problems.slice(0, 20)) console.log(`  ${problem}`);
  await api.close();
  process.exitCode = problems.length === 0 ? 0 : 1;
} finally {
  await dynamoDb.stop();
}

function describe(request: { method: string; path: string; rawBody: string | undefined }): string {
  return `${request.method} ${request.path} (${request.rawBody?.length ?? 0} bytes: ${request.rawBody?.slice(0, 120)})`;
}

/** What is wrong with an answer, if anything: a 5xx, or a missing X-Request-Id or envelope. */
function problemOf(response: { status: number; headers: Headers; body: unknown }): string | undefined {
  if (response.status >= 500) return '5xx';
  const requestId = response.headers.get('x-request-id');
  if (!requestId) return 'no X-Request-Id';
  if (response.status < 400) return undefined;
  const error = (response.body as { error?: { code?: unknown; message?: unknown; requestId?: unknown } })
    ?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string') return 'no envelope';
  if (!CATALOG.has(error.code)) return `code ${error.code} is not in the error catalog`;
  if (error.requestId !== requestId) return 'error.requestId differs from X-Request-Id';
  return undefined;
}
