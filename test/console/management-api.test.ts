import { describe, expect, it } from 'vitest';
import { humanEmail, signupBody } from '../support/account-fixtures.ts';
import { expectError, TEST_OPERATOR, waitForKeyCacheExpiry, withTestApi } from '../support/api.ts';
import { countersOf, emailOf } from '../support/commerce.ts';
import { consoleKey, orderAndReturn, reviewEveryReturn, saveWorkflow } from '../support/console.ts';
import { orderBody, uid } from '../support/fixtures.ts';

const { revokeApiKey, findApiKeyByHash, hashApiKey } = await import('../../shared/store/merchants.ts');
const { ROUTES } = await import('../../shared/http/routes.ts');

/** Every management route with its path ids filled in. */
const MANAGEMENT_ROUTES = ROUTES.filter((r) => r.functionName === 'console').map((r) => ({
  method: r.method,
  path: r.path.replace('{type}', 'order').replace(/\{[^}]+\}/g, 'x-1'),
}));

/** The management API (issue 14) through HTTP: scopes, sessions, reviews, decisions, workflows, audit. */
describe('management API', () => {
  const suite = withTestApi();
  const get = (path: string, apiKey: string) => suite.api.request('GET', path, { apiKey });
  const post = (path: string, body: unknown, apiKey: string) => suite.api.post(path, body, { apiKey });

  it('takes console keys only: an events key is 403 forbidden, no credential 401', async () => {
    const key = await consoleKey(suite.merchantId);
    expect((await get('/v1/reviews', key)).status).toBe(200);
    const refused = await get('/v1/reviews', suite.apiKey);
    expectError(refused, 403, 'forbidden');
    expect(refused.body.error.message).toContain('needs a console key');
    expectError(await suite.api.request('GET', '/v1/audit'), 401, 'unauthenticated');
    expectError(await get('/v1/reviews', 'pk_test_nope'), 401, 'invalid_api_key');
  });

  it('refuses an events key on every management endpoint, and a missing credential, before anything else', async () => {
    expect(MANAGEMENT_ROUTES.length).toBe(41); // 14 console routes, 9 of webhooks, 3 of decision settings, 6 of lists, 2 of the network, 3 of privacy requests, 2 of exports, 2 of backtests
    for (const { method, path } of MANAGEMENT_ROUTES) {
      expectError(await suite.api.request(method, path, { apiKey: suite.apiKey }), 403, 'forbidden');
      expectError(await suite.api.request(method, path), 401, 'unauthenticated');
    }
  });

  it('refuses a CSV over 5 MB with 413', async () => {
    const key = await consoleKey(suite.merchantId);
    const big = `returnId\n${'r'.repeat(5 * 1024 * 1024)}`;
    const response = await suite.api.request('POST', '/v1/return/dispositions/upload', {
      apiKey: key,
      headers: { 'Content-Type': 'text/csv' },
      rawBody: big,
    });
    expectError(response, 413, 'payload_too_large');
  });

  it('answers unknown query parameters, bad cursors and unknown types with the envelope', async () => {
    const key = await consoleKey(suite.merchantId);
    expectError(await get('/v1/reviews?colour=red', key), 422, 'unknown_field', 'colour');
    expectError(await get('/v1/reviews?status=closed', key), 422, 'unprocessable_entity', 'status');
    expectError(await get('/v1/reviews?cursor=bm90LWEtY3Vyc29y', key), 400, 'invalid_request', 'cursor');
    expectError(await get('/v1/workflows/parcel', key), 404, 'not_found');
    expectError(await get('/v1/decisions/order/no-such-order', key), 404, 'not_found');
    expectError(
      await suite.api.request('PATCH', '/v1/workflows/order', { apiKey: key }),
      405,
      'method_not_allowed',
    );
    const wrongMethod = await suite.api.request('PATCH', '/v1/workflows/order', { apiKey: key });
    expect(wrongMethod.headers.get('allow')).toBe('GET, PUT');
  });

  it('queues a REVIEW return, explains it, resolves it once, and the label moves the next score', async () => {
    const key = await consoleKey(suite.merchantId);
    expect((await saveWorkflow(suite.api, key, 'return', reviewEveryReturn)).status).toBe(200);
    const email = `${uid('shopper')}@example.com`;
    const first = await orderAndReturn(suite.api, suite.apiKey, { email });
    expect(first.response.body.returnedLineItems[0].decision).toBe('REVIEW');

    const queue = await get('/v1/reviews?eventType=return', key);
    const item = queue.body.items.find(
      (r: { providerId: string }) => r.providerId === first.returnBody.providerReturnId,
    );
    expect(item).toMatchObject({ eventType: 'return', status: 'open' });
    expect((await get('/v1/reviews?eventType=order', key)).body.items).toEqual([]);

    const detail = await get(`/v1/reviews/${item.reviewId}`, key);
    const explained = detail.body.explanation.decisions[0];
    expect(explained.rule).toEqual({ name: 'review_all_returns', condition: 'abuseScore >= 0' });
    expect(explained.variables.abuseScore).toBe(explained.abuseScore);
    expect(explained.signals.length).toBeGreaterThan(0);
    expect(detail.body.explanation.identities.map((i: { kind: string }) => i.kind)).toContain('email');

    const resolved = await post(
      `/v1/reviews/${item.reviewId}/resolve`,
      { outcome: 'abuse', note: 'empty box' },
      key,
    );
    expect(resolved.body.resolution).toMatchObject({
      outcome: 'abuse',
      note: 'empty box',
      resolvedBy: 'ana@acme.example',
    });
    expectError(
      await post(`/v1/reviews/${item.reviewId}/resolve`, { outcome: 'legitimate' }, key),
      409,
      'review_already_resolved',
    );
    expectError(await post('/v1/reviews/rev_nope/resolve', { outcome: 'abuse' }, key), 404, 'not_found');
    expectError(
      await post(`/v1/reviews/${item.reviewId}/resolve`, { outcome: 'maybe' }, key),
      422,
      'unprocessable_entity',
      'outcome',
    );
    expect((await countersOf(suite.merchantId, emailOf(first.order))).c_abr).toBe(1);

    const second = await orderAndReturn(suite.api, suite.apiKey, { email });
    const before = explained.abuseScore;
    const after = (await get(`/v1/decisions/return/${second.returnBody.providerReturnId}`, key)).body;
    expect(after.decisions[0].abuseScore).toBeGreaterThan(before);
    // Counters in words, each in the right number.
    expect(after.identities.find((i: { kind: string }) => i.kind === 'email').summary).toMatch(
      /^email: 2 orders, .*2 returns, .*1 abusive return$/,
    );

    const audit = await get('/v1/audit', key);
    // The resolution's entry; the abuseReview rule's list entries are audited at the same time.
    expect(audit.body.items.find((a: { action: string }) => a.action === 'review.resolved')).toMatchObject({
      action: 'review.resolved',
      subject: item.reviewId,
      keyName: 'ana@acme.example',
      detail: 'abuse: empty box',
    });
  });

  it('pages the queue oldest first with an opaque cursor', async () => {
    const key = await consoleKey(suite.merchantId);
    await saveWorkflow(suite.api, key, 'return', reviewEveryReturn);
    await orderAndReturn(suite.api, suite.apiKey);
    await orderAndReturn(suite.api, suite.apiKey);
    const all = (await get('/v1/reviews?limit=100', key)).body.items;
    expect(all.length).toBeGreaterThanOrEqual(2);
    const page1 = await get('/v1/reviews?limit=1', key);
    expect(page1.body.items).toEqual([all[0]]);
    const page2 = await get(`/v1/reviews?limit=1&cursor=${page1.body.nextCursor}`, key);
    expect(page2.body.items).toEqual([all[1]]);
    expect(all.map((r: { createdAt: string }) => r.createdAt)).toEqual(
      all.map((r: { createdAt: string }) => r.createdAt).sort(),
    );
  });

  it('explains an order by its providerOrderId', async () => {
    const key = await consoleKey(suite.merchantId);
    const { order } = await orderAndReturn(suite.api, suite.apiKey);
    const explanation = (await get(`/v1/decisions/order/${order.providerOrderId}`, key)).body;
    expect(explanation).toMatchObject({ eventType: 'order', providerId: order.providerOrderId });
    const [decision] = explanation.decisions;
    expect(decision.modelVersion).toMatch(/order/);
    expect(decision.workflowVersion).toBe('default-order-2');
    expect(decision.rule.name).toBe(decision.subDecision);
    expect(explanation.identities.find((i: { kind: string }) => i.kind === 'device').summary).toMatch(
      /^device: /,
    );
  });

  it('says a weighted counter in words to two decimals: an order seconds after its signup weighs a hair under one', async () => {
    const key = await consoleKey(suite.merchantId);
    const [email, device, at] = [humanEmail(), uid('device'), Date.now() - 60_000];
    await suite.api.post('/v1/evaluate/signup', signupBody({ email, device, timestamp: at }), {
      apiKey: suite.apiKey,
    });
    const order = orderBody({ email, device, timestamp: at + 2_000 });
    await suite.api.post('/v1/order', order, { apiKey: suite.apiKey });
    const explanation = (await get(`/v1/decisions/order/${order.providerOrderId}`, key)).body;
    const summary = explanation.identities.find((i: { kind: string }) => i.kind === 'device').summary;
    expect(summary).toContain('1 scripted order');
    expect(summary).not.toMatch(/\d\.\d{3}/);
  });

  it('validates, accepts a backtest, saves and lists workflow versions with the CLI messages', async () => {
    const key = await consoleKey(suite.merchantId, 'workflow-editor@acme.example');
    const live = await get('/v1/workflows/order', key);
    expect(live.body).toMatchObject({ source: 'default', workflow: { version: 'default-order-2' } });
    const typo = {
      rules: [{ name: 'big_orders', decision: 'DECLINE', condition: 'abuseScroe >= 10' }],
      defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
    };
    const checked = await post('/v1/workflows/order/validate', { workflow: typo }, key);
    expect(checked.body.valid).toBe(false);
    expect(checked.body.errors[0]).toContain('abuseScroe');
    const refused = await saveWorkflow(suite.api, key, 'order', typo);
    expectError(refused, 422, 'invalid_workflow');
    expect(refused.body.error.details[0].message).toBe(checked.body.errors[0]);
    expectError(
      await post('/v1/backtests', { eventType: 'order', workflow: typo }, key),
      422,
      'invalid_workflow',
    );

    const fixed = { ...typo, rules: [{ ...typo.rules[0], condition: 'abuseScore >= 0' }] };
    expect((await post('/v1/workflows/order/validate', { workflow: fixed }, key)).body).toEqual({
      valid: true,
      errors: [],
      decisionType: 'APPROVE/DECLINE',
    });
    // The backtest is a job (test/backtests.test.ts runs it): accepted as valid.
    const accepted = await post('/v1/backtests', { eventType: 'order', workflow: fixed }, key);
    expect(accepted.status, accepted.text).toBe(202);
    expect(accepted.body.status).toBe('pending');
    const saved = await saveWorkflow(suite.api, key, 'order', fixed);
    expect(saved.body).toMatchObject({ source: 'stored', workflow: { rules: fixed.rules } });
    const versions = (await get('/v1/workflows/order/versions', key)).body.items;
    expect(versions[0]).toMatchObject({
      savedBy: 'workflow-editor@acme.example',
      workflow: { version: saved.body.workflow.version },
    });
    const audit = (await get('/v1/audit', key)).body.items;
    expect(audit[0]).toMatchObject({ action: 'workflow.saved', keyName: 'workflow-editor@acme.example' });
    // Restore the default so other tests' orders are approved.
    await saveWorkflow(suite.api, key, 'order', {
      rules: [{ name: 'high_abuse_score', decision: 'DECLINE', condition: 'abuseScore >= 85' }],
      defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
    });
  });

  describe('console sessions', () => {
    it('exchanges a console key for an HttpOnly Secure SameSite=Strict cookie that management calls accept', async () => {
      const key = await consoleKey(suite.merchantId, 'bo@acme.example');
      const signIn = await suite.api.request('POST', '/v1/console/session', { apiKey: key });
      expect(signIn.body).toMatchObject({ name: 'bo@acme.example', merchantId: suite.merchantId });
      const expiresIn = Date.parse(signIn.body.expiresAt) - Date.now();
      expect(expiresIn).toBeGreaterThan(11.9 * 3_600_000);
      expect(expiresIn).toBeLessThanOrEqual(12 * 3_600_000 + 1_000);
      const setCookie = signIn.headers.get('set-cookie')!;
      expect(setCookie).toMatch(
        /^console_session=[0-9A-Za-z]{43}; Path=\/v1; Max-Age=43200; HttpOnly; Secure; SameSite=Strict$/,
      );
      const cookie = setCookie.split(';')[0]!;
      const token = cookie.split('=')[1]!;
      // Only the token's hash is stored.
      const { getRecord } = await import('../../shared/store/record-once.ts');
      const { consoleKeys } = await import('../../shared/store/keys.ts');
      const { sha256Hex } = await import('../../shared/store/canonical.ts');
      expect(await getRecord(consoleKeys.consoleSession(token))).toBeUndefined();
      expect(await getRecord(consoleKeys.consoleSession(sha256Hex(token)))).toMatchObject({
        keyId: expect.any(String),
      });

      const withCookie = (
        method: string,
        path: string,
        body?: unknown,
        headers: Record<string, string> = {},
      ) =>
        suite.api.request(method, path, {
          headers: { Cookie: cookie, ...headers },
          ...(body ? { rawBody: JSON.stringify(body) } : {}),
        });
      expect((await withCookie('GET', '/v1/audit')).status).toBe(200);
      // A change with the cookie alone is refused: the custom header is the CSRF guard.
      const workflow = { workflow: reviewEveryReturn };
      expectError(await withCookie('POST', '/v1/workflows/return/validate', workflow), 403, 'forbidden');
      const validated = await withCookie('POST', '/v1/workflows/return/validate', workflow, {
        'X-Console-Request': '1',
      });
      expect(validated.body.valid).toBe(true);
      // The cookie does not open event endpoints.
      expectError(await withCookie('POST', '/v1/order', { a: 1 }), 401, 'unauthenticated');

      const signOut = await withCookie('DELETE', '/v1/console/session', undefined, {
        'X-Console-Request': '1',
      });
      expect(signOut.body).toEqual({ signedOut: true });
      expect(signOut.headers.get('set-cookie')).toContain('Max-Age=0');
      expectError(await withCookie('GET', '/v1/audit'), 401, 'unauthenticated');
    });

    it("ends with the key: a revoked console key's session is refused", async () => {
      const key = await consoleKey(suite.merchantId);
      const signIn = await suite.api.request('POST', '/v1/console/session', { apiKey: key });
      const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
      const { keyId } = (await findApiKeyByHash(hashApiKey(key)))!;
      await revokeApiKey(keyId, TEST_OPERATOR);
      await waitForKeyCacheExpiry();
      expectError(
        await suite.api.request('GET', '/v1/reviews', { headers: { Cookie: cookie } }),
        401,
        'invalid_api_key',
      );
    });

    it('an events key cannot open a session', async () => {
      expectError(
        await suite.api.request('POST', '/v1/console/session', { apiKey: suite.apiKey }),
        403,
        'forbidden',
      );
    });
  });
});
