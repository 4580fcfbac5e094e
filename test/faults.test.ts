import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * Fault injection on the shared DynamoDB client (test/support/faults.ts), for every endpoint: what
 * real DynamoDB does under contention and load (TransactionConflict, throttling, timeouts, a call
 * failing outright) never leaves part of a request written, is retried within the request's time
 * budget, ends as 503 with Retry-After when it persists, and the client's retry is applied once.
 */

// A table of this suite's own: whole-table snapshots stay small and no other suite writes meanwhile.
vi.hoisted(() => {
  process.env.TABLE_NAME = `faults-${Date.now().toString(36)}`;
});

const { ENDPOINTS } = await import('../shared/contract/endpoints.ts');
const { MAX_STORE_ATTEMPTS } = await import('../shared/store/store-failures.ts');
const { lambdaContext } = await import('../local/api-gateway-event.ts');
const { newMerchant, startTestApi } = await import('./support/api.ts');
const { countedRequest, IDEMPOTENCY_KEY_ENDPOINTS } = await import('./support/endpoint-fixtures.ts');
const { clearFaults, injectFault, pendingFaults, throttled, timedOut, transactionConflict } = await import(
  './support/faults.ts'
);
const { orderBody, uid } = await import('./support/fixtures.ts');
const { jsonPostEvent } = await import('./support/lambda-events.ts');
const { changedKeys, createOwnTable, tableSnapshot } = await import('./support/table-snapshot.ts');
const { handler: orderHandler } = await import('../functions/order.ts');

type TestApi = Awaited<ReturnType<typeof startTestApi>>;
type Response = Awaited<ReturnType<TestApi['post']>>;

let api: TestApi;
let apiKey: string;
let merchantId: string;

beforeAll(async () => {
  await createOwnTable();
  api = await startTestApi();
  ({ apiKey, merchantId } = await newMerchant({ accountUpdatesEnabled: true }));
});
afterAll(() => api.close());
afterEach(() => clearFaults());

/**
 * A counted request of the endpoint, sent with an Idempotency-Key where the endpoint honours one,
 * so the client's retry of a lost answer is answered from the record (docs/decisions.md).
 */
async function prepared(endpoint: (typeof ENDPOINTS)[number]) {
  const request = await countedRequest(endpoint, api, apiKey, merchantId);
  const headers: Record<string, string> = IDEMPOTENCY_KEY_ENDPOINTS.includes(endpoint)
    ? { 'Idempotency-Key': uid('retry') }
    : {};
  // Authenticates, so the key is cached and the faulted request's calls are the endpoint's own.
  await api.post(request.path, {}, { apiKey });
  return { ...request, send: () => api.post(request.path, request.body, { apiKey, headers }) };
}

function expectUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(response.body.error).toMatchObject({
    code: 'service_unavailable',
    requestId: response.headers.get('x-request-id'),
  });
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

describe.each(ENDPOINTS)('faults on %s', (endpoint) => {
  it('retries transaction conflicts and throttles within the request: one answer, applied once', async () => {
    const request = await prepared(endpoint);
    injectFault('TransactWriteItemsCommand', transactionConflict, 2);
    injectFault('TransactWriteItemsCommand', throttled, 1);
    const response = await request.send();
    expect(response.status, response.text).toBe(200);
    expect(pendingFaults()).toBe(0);
    expect(await request.probe()).toBe(1);
  });

  it('a failure of any one of its DynamoDB calls leaves nothing behind; the retry is applied once', async () => {
    const request = await prepared(endpoint);
    let failedCalls = 0;
    for (let call = 1; ; call++) {
      const before = await tableSnapshot();
      injectFault('*', () => new Error('injected: connection reset'), { skip: call - 1 });
      const response = await request.send();
      if (pendingFaults() > 0) {
        // The request made fewer calls than `call`: it ran clean, which is the client's retry.
        clearFaults();
        expect(response.status, response.text).toBe(200);
        break;
      }
      expect(response.status, `call ${call}`).toBe(500);
      expect(response.body.error).toEqual({
        code: 'internal_error',
        message: 'An internal error occurred.',
        requestId: response.headers.get('x-request-id'),
      });
      expect(changedKeys(before, await tableSnapshot()), `call ${call}`).toEqual([]);
      clearFaults();
      failedCalls++;
    }
    // The rate-limit token, the read(s) and the transaction were each failed once.
    expect(failedCalls).toBeGreaterThanOrEqual(3);
    expect(await request.probe()).toBe(1);
  });

  it.each([
    ['throttling', throttled],
    ['transaction conflicts', transactionConflict],
    ['timeouts before sending', timedOut],
  ])(
    '%s beyond the retries: 503 with Retry-After, nothing recorded; the retry is applied once',
    async (_label, fault) => {
      const request = await prepared(endpoint);
      const before = await tableSnapshot();
      injectFault('TransactWriteItemsCommand', fault, 100);
      expectUnavailable(await request.send());
      expect(100 - pendingFaults()).toBe(MAX_STORE_ATTEMPTS);
      expect(changedKeys(before, await tableSnapshot())).toEqual([]);
      clearFaults();
      expect((await request.send()).status).toBe(200);
      expect(await request.probe()).toBe(1);
    },
  );

  it('a transaction applied but answered by a timeout is retried with its token: applied once, answered', async () => {
    const request = await prepared(endpoint);
    injectFault('TransactWriteItemsCommand', timedOut, { afterSend: true });
    const response = await request.send();
    expect(response.status, response.text).toBe(200);
    expect(await request.probe()).toBe(1);
  });

  it('answers lost to the end: 503, applied once, and the client’s retry gets the original decision', async () => {
    const request = await prepared(endpoint);
    injectFault('TransactWriteItemsCommand', timedOut, { times: 100, afterSend: true });
    expectUnavailable(await request.send());
    expect(await request.probe()).toBe(1);
    clearFaults();
    const retried = await request.send();
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');
    expect(await request.probe()).toBe(1);
  });

  it('a throttled first read is retried within the request; throttling that persists is a 503', async () => {
    const request = await prepared(endpoint);
    injectFault('BatchGetItemCommand', throttled, 2);
    expect((await request.send()).status).toBe(200);
    expect(await request.probe()).toBe(1);

    const next = await prepared(endpoint);
    const before = await tableSnapshot();
    injectFault('BatchGetItemCommand', throttled, 100);
    expectUnavailable(await next.send());
    expect(changedKeys(before, await tableSnapshot())).toEqual([]);
  });
});

describe('the request time budget', () => {
  const invoke = (remainingMs: number) =>
    orderHandler(jsonPostEvent('/v1/order', orderBody(), apiKey), lambdaContext('budget-test', remainingMs));

  it('stops retrying when the Lambda’s remaining time runs short, and still answers 503 in time', async () => {
    await invoke(10_000); // caches the key
    injectFault('TransactWriteItemsCommand', transactionConflict, 100);
    const started = Date.now();
    // 1,030 ms left, 1,000 of them kept back to answer: 30 ms for retries, less than one backoff.
    const response = await invoke(1_030);
    expect(response.statusCode).toBe(503);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(100 - pendingFaults()).toBe(1); // one attempt, no retry

    // With the whole budget the same conflicts get every attempt.
    expect((await invoke(10_000)).statusCode).toBe(503);
    expect(100 - pendingFaults()).toBe(1 + MAX_STORE_ATTEMPTS);
  });

  it('a throttled API-key lookup answers 503 with Retry-After, not 500', async () => {
    const { apiKey: fresh } = await newMerchant();
    injectFault('GetItemCommand', throttled, 100);
    expectUnavailable(await api.post('/v1/order', orderBody(), { apiKey: fresh }));
  });
});
