import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type AbuseDecisionClient,
  AbuseDecisionError,
  type AccountRequest,
  createAbuseDecisionClient,
  type DispositionRequest,
  type DisputeRequest,
  type LoginRequest,
  type OrderRequest,
  type ReturnRequest,
  type SignupRequest,
} from '../client/src/index.ts';
import { accountBody, loginBody, signupBody } from './support/account-fixtures.ts';
import { newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { disputeEntry, itemDisposition, returnBody } from './support/commerce.ts';
import { assertMatchesContract } from './support/contract.ts';
import { orderBody } from './support/fixtures.ts';

/**
 * The typed client (client/, @abuse-decision/client) against the local server: every endpoint, and
 * the contract's retry rules (docs/api.md) against failures injected in its transport, with the
 * waits asserted on fake timers.
 */
let api: TestApi;
let apiKey: string;

/** The test fixtures build bodies loosely typed; the client takes the document's types. */
const typed = <T>(body: unknown) => body as T;

/** The real transport, with every answer checked against openapi.json like the other suites'. */
async function checkedFetch(request: Request): Promise<Response> {
  const response = await fetch(request);
  const body: unknown = await response.clone().json();
  assertMatchesContract(request.method, request.url, response.status, body, response.headers);
  return response;
}

/** Answers the first calls with the scripted responses, then passes through; records what was sent. */
function scriptedTransport(script: (Response | Error)[]) {
  const sent: Request[] = [];
  const transport = async (request: Request) => {
    sent.push(request);
    const next = script.shift();
    if (next instanceof Error) throw next;
    return next ?? checkedFetch(request);
  };
  return { sent, transport };
}

function failure(status: number, code: string, requestId: string, headers: Record<string, string> = {}) {
  return new Response(JSON.stringify({ error: { code, message: `injected ${code}`, requestId } }), {
    status,
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, ...headers },
  });
}

const clientWith = (transport: (request: Request) => Promise<Response>): AbuseDecisionClient =>
  createAbuseDecisionClient({
    baseUrl: api.baseUrl,
    apiKey,
    fetch: transport,
    timing: { random: () => 0.5 },
  });

beforeAll(async () => {
  api = await startTestApi();
  ({ apiKey } = await newMerchant({ accountUpdatesEnabled: true }));
});
afterAll(() => api.close());
afterEach(() => {
  vi.useRealTimers();
});

describe('the typed client, every endpoint through it', () => {
  it('orders, returns, disposes, disputes, signs up, logs in and updates an account', async () => {
    const client = clientWith(checkedFetch);
    const order = orderBody();
    const placed = await client.order(typed<OrderRequest>(order));
    expect('alreadyRecorded' in placed).toBe(false);
    if ('alreadyRecorded' in placed) return;
    expect(placed.providerOrderID).toBe(order.providerOrderId);
    expect(placed.cartLevelDecisions[0]!.decisions[0]!.decision).toMatch(/^(APPROVE|DECLINE)$/);

    const returned = typed<ReturnRequest>(returnBody(order));
    const returnAnswer = await client.return(returned);
    expect(returnAnswer.returnedLineItems[0]!.reason).toEqual(expect.any(String));

    const disposition = await client.disposition(
      returned.providerReturnId,
      typed<DispositionRequest>({ itemDispositions: [itemDisposition(order, 0, 'NEW', 'RESTOCK')] }),
    );
    expect(disposition).toMatchObject({
      providerReturnId: returned.providerReturnId,
      dispositionsRecorded: 1,
    });

    const dispute = await client.dispute(
      order.providerOrderId,
      typed<DisputeRequest>({ dispute: [disputeEntry()] }),
    );
    expect(dispute).toMatchObject({ providerOrderId: order.providerOrderId, disputesRecorded: 1 });

    const signup = await client.signup(typed<SignupRequest>(signupBody()));
    // A first signup with nothing linked to it: the default branch, well under the review threshold.
    expect(signup.Decisions[0]!.decisions[0]).toMatchObject({
      decision: 'APPROVE',
      subDecision: 'default_approve',
    });
    expect(signup.Decisions[0]!.decisions[0]!.abuseScore).toBeLessThan(10);
    const login = await client.login(typed<LoginRequest>(loginBody()));
    expect(login.serviceLoginID).toMatch(/^lgn_/);
    const account = await client.account(typed<AccountRequest>(accountBody()));
    expect(account.Decisions[0]!.decisions[0]!.decisionType).toBe('APPROVE/DECLINE/REVIEW');
  });

  it('throws the API error with its code, field and requestId, without retrying a 4xx', async () => {
    const { sent, transport } = scriptedTransport([]);
    const error = await clientWith(transport)
      .return(typed<ReturnRequest>(returnBody(orderBody())))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbuseDecisionError);
    expect(error).toMatchObject({ status: 404, code: 'order_not_found', attempts: 1 });
    expect((error as AbuseDecisionError).requestId).toMatch(/.+/);
    expect(sent).toHaveLength(1);
  });
});

describe('retries (docs/api.md), waits on fake timers', () => {
  it('backs off 1 s, 2 s after 503s, honours Retry-After on a 429, and sends one Idempotency-Key throughout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { sent, transport } = scriptedTransport([
      failure(503, 'service_unavailable', 'r1'),
      failure(503, 'service_unavailable', 'r2'),
      failure(429, 'rate_limited', 'r3', { 'Retry-After': '3' }),
    ]);
    const pending = clientWith(transport).login(typed<LoginRequest>(loginBody()));
    const attemptsAfter = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
      return sent.length;
    };
    expect(await attemptsAfter(0)).toBe(1);
    expect(await attemptsAfter(999)).toBe(1);
    expect(await attemptsAfter(1)).toBe(2); // 1 s
    expect(await attemptsAfter(1_999)).toBe(2);
    expect(await attemptsAfter(1)).toBe(3); // 2 s
    expect(await attemptsAfter(2_999)).toBe(3);
    expect(await attemptsAfter(1)).toBe(4); // Retry-After: 3, not the 4 s backoff
    const answer = await pending;
    expect(answer.serviceLoginID).toMatch(/^lgn_/);
    const keys = sent.map((r) => r.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
  });

  it('gives up after attempt 5 (waits 1, 2, 4, 8 s) with the last error.code and requestId', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { sent, transport } = scriptedTransport(
      [1, 2, 3, 4, 5].map((n) => failure(503, 'service_unavailable', `req-${n}`)),
    );
    const outcome = clientWith(transport)
      .account(typed<AccountRequest>(accountBody()))
      .catch((e: unknown) => e);
    for (const [wait, attempts] of [
      [999, 1],
      [1, 2],
      [2_000, 3],
      [3_999, 3],
      [1, 4],
      [7_999, 4],
      [1, 5],
    ] as const) {
      await vi.advanceTimersByTimeAsync(wait);
      expect(sent.length, `after +${wait} ms`).toBe(attempts);
    }
    const error = await outcome;
    expect(error).toBeInstanceOf(AbuseDecisionError);
    expect(error).toMatchObject({
      status: 503,
      code: 'service_unavailable',
      requestId: 'req-5',
      attempts: 5,
    });
    expect(new Set(sent.map((r) => r.headers.get('idempotency-key'))).size).toBe(1);
  });

  it('retries a network error, and the jitter keeps each wait within ±20 % of its base', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { sent, transport } = scriptedTransport([new TypeError('fetch failed')]);
    const client = createAbuseDecisionClient({
      baseUrl: api.baseUrl,
      apiKey,
      fetch: transport,
      timing: { random: () => 0.999 },
    });
    const pending = client.signup(typed<SignupRequest>(signupBody()));
    await vi.advanceTimersByTimeAsync(1_198);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2);
    expect(sent).toHaveLength(2);
    expect((await pending).serviceSignupID).toMatch(/^sgn_/);
  });

  it('treats 409 duplicate_order on a retried order as success, but not on a first attempt', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const order = typed<OrderRequest>(orderBody());
    const retried = scriptedTransport([
      failure(502, 'bad_gateway', 'g1'),
      failure(409, 'duplicate_order', 'd2'),
    ]);
    const pending = clientWith(retried.transport).order(order);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await pending).toEqual({
      alreadyRecorded: true,
      providerOrderId: order.providerOrderId,
      requestId: 'd2',
    });
    expect(retried.sent).toHaveLength(2);
    // Orders are idempotent by providerOrderId: no Idempotency-Key is sent.
    expect(retried.sent[0]!.headers.get('idempotency-key')).toBeNull();

    const first = scriptedTransport([failure(409, 'duplicate_order', 'd1')]);
    const error = await clientWith(first.transport)
      .order(order)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'duplicate_order', requestId: 'd1', attempts: 1 });
  });
});
