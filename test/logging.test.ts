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
    for (const secret of [apiKey, apiKey.slice(8), 'Very.Private', 'very.private', '535522', '9876']) {
      expect(log).not.toContain(secret);
    }
  });
});
