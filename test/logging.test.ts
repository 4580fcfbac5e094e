import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Powertools resets the level to its configured one at each invocation, so configure it before import.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';
});

const { newMerchant, startTestApi } = await import('./support/api.ts');
const { injectFault } = await import('./support/faults.ts');
const { orderBody } = await import('./support/fixtures.ts');
const { logger } = await import('../shared/observability.ts');

let api: Awaited<ReturnType<typeof startTestApi>>;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('logs', () => {
  it('carry the request id and merchant id, never the API key, a raw e-mail or card data', async () => {
    const { merchantId, apiKey } = await newMerchant();
    const body = orderBody({ email: 'Very.Private+tag@example.com', card: { BIN: '535522', last4: '9876' } });
    const lines: string[] = [];
    const originalWrite = process.stdout.write.bind(process.stdout);
    const originalErr = process.stderr.write.bind(process.stderr);
    const capture = (chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    };
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    try {
      injectFault('TransactWriteItemsCommand', () => new Error('injected failure'));
      await api.post('/v1/order', body, { apiKey }); // the error path logs
      await api.post('/v1/order', body, { apiKey }); // the success path
      logger.info('probe');
    } finally {
      process.stdout.write = originalWrite;
      process.stderr.write = originalErr;
    }
    const log = lines.join('');
    expect(log).toContain(merchantId);
    expect(log).toContain('unexpected error');
    expect(log).toMatch(/"requestId":"[0-9a-f-]{36}"/);
    for (const secret of [apiKey, apiKey.slice(8), 'Very.Private', 'very.private']) {
      expect(log).not.toContain(secret);
    }
    // Card digits as a value of their own: the same digits inside a random id or a timestamp are chance.
    for (const digits of ['535522', '9876'])
      expect(log).not.toMatch(new RegExp(`(?<![0-9A-Za-z])${digits}(?![0-9A-Za-z])`));
  });
});

describe('log hygiene on every endpoint', () => {
  it('no endpoint logs the key, its hash, credentials, raw contact or card data: success, refusal or failure', async () => {
    const { createHash } = await import('node:crypto');
    const { accountBody, loginBody, signupBody } = await import('./support/account-fixtures.ts');
    const { disputeEntry, itemDisposition, returnBody } = await import('./support/commerce.ts');
    const { merchantId, apiKey } = await newMerchant({ accountUpdatesEnabled: true });
    const order = orderBody({
      email: 'Hidden.Shopper+x@example.com',
      card: { BIN: '411177', last4: '6789' },
    });
    order.customer.contactInformation.push({ contactType: 'Phone', number: '+1 555 0100 4321' } as never);
    const ret = returnBody(order);
    const signup = signupBody({ email: 'Hidden.Signup@example.com', phone: '+44 20 7946 0321' });
    const login = {
      ...loginBody(),
      email: 'Hidden.Login@example.com',
      username: 'hidden-username-q7',
      verificationPhoneNumber: '+49 30 1234 5678',
    };
    const passwordHash = createHash('sha256').update('hunter2-secret').digest('hex');
    const account = accountBody({
      changeType: 'PASSWORD_CHANGE',
      previousValue: passwordHash,
      newValue: 'redacted',
    });
    const emailChange = accountBody({ changeType: 'EMAIL_CHANGE', newValue: 'Hidden.New@example.com' });
    const requests: [string, unknown][] = [
      ['/v1/order', order],
      ['/v1/return', ret],
      [
        `/v1/return/disposition/${ret.providerReturnId}`,
        { itemDispositions: [itemDisposition(order, 0, 'EMPTY_BOX', 'RESTOCK')] },
      ],
      [`/v1/order/dispute/${order.providerOrderId}`, { dispute: [disputeEntry()] }],
      ['/v1/evaluate/signup', signup],
      ['/v1/evaluate/login', login],
      ['/v1/evaluate/account', account],
      ['/v1/evaluate/account', emailChange],
    ];
    const lines: string[] = [];
    const originalWrite = process.stdout.write.bind(process.stdout);
    const originalErr = process.stderr.write.bind(process.stderr);
    const capture = (chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    };
    process.stdout.write = capture as typeof process.stdout.write;
    process.stderr.write = capture as typeof process.stderr.write;
    const statuses: number[] = [];
    try {
      for (const [path, body] of requests) {
        const headers = { 'Idempotency-Key': `log-${path.length}-${statuses.length}` };
        // The failure path (logged with its stack), then the success path, then a refusal.
        injectFault('TransactWriteItemsCommand', () => new Error('injected failure'));
        statuses.push((await api.post(path, body, { apiKey, headers })).status);
        statuses.push((await api.post(path, body, { apiKey, headers })).status);
        statuses.push((await api.post(path, { ...(body as object), unexpected: 'x' }, { apiKey })).status);
      }
    } finally {
      process.stdout.write = originalWrite;
      process.stderr.write = originalErr;
    }
    expect(statuses).toEqual(requests.flatMap(() => [500, 200, 422]));
    const log = lines.join('');
    expect(log).toContain(merchantId);
    expect(log).toContain('unexpected error');
    const keyHash = createHash('sha256').update(apiKey).digest('hex');
    const secrets = [
      apiKey,
      apiKey.slice(8),
      keyHash,
      'hidden.shopper',
      'hidden.signup',
      'hidden.login',
      'hidden.new',
      'hidden-username-q7',
      '411177',
      '6789',
      '0100 4321',
      '7946 0321',
      '1234 5678',
      passwordHash,
      (order.customer.contactInformation[1]!.address as { line1: string }).line1,
    ];
    for (const secret of secrets) expect(log.toLowerCase(), secret).not.toContain(secret.toLowerCase());
  });
});
