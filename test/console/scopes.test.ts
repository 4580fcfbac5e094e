import { describe, expect, it } from 'vitest';
import { admin } from '../support/admin.ts';
import { expectError, withTestApi } from '../support/api.ts';
import { orderBody } from '../support/fixtures.ts';

const { createApiKey } = await import('../../shared/store/merchants.ts');

/** Key scopes: `events` keys call the event endpoints, `console` keys the management API. */
describe('key scopes', () => {
  const suite = withTestApi();

  it('a console key on an event endpoint is 403 forbidden', async () => {
    const consoleKey = await createApiKey({
      merchantId: suite.merchantId,
      environment: 'sandbox',
      scope: 'console',
      name: 'ana@acme.example',
    });
    const response = await suite.api.post('/v1/order', orderBody(), { apiKey: consoleKey!.apiKey });
    expectError(response, 403, 'forbidden');
    expect(response.body.error.message).toContain('console key');
  });

  it('the admin CLI issues a console key with a holder name, and refuses one without', async () => {
    const issued = await admin(
      'key',
      'create',
      '--merchant',
      suite.merchantId,
      '--scope',
      'console',
      '--name',
      'ana@acme.example',
    );
    expect(issued.code).toBe(0);
    const key = JSON.parse(issued.stdout) as { apiKey: string; scope: string; name: string };
    expect(key).toMatchObject({ scope: 'console', name: 'ana@acme.example' });
    expectError(await suite.api.post('/v1/order', orderBody(), { apiKey: key.apiKey }), 403, 'forbidden');

    const unnamed = await admin('key', 'create', '--merchant', suite.merchantId, '--scope', 'console');
    expect(unnamed.code).not.toBe(0);
    expect(unnamed.stderr).toContain('--name');
    const unknown = await admin('key', 'create', '--merchant', suite.merchantId, '--scope', 'admin');
    expect(unknown.stderr).toContain('--scope must be one of events, console');
  });

  it('keys without a scope (issued before scopes) and new default keys still call event endpoints', async () => {
    const events = await createApiKey({ merchantId: suite.merchantId, environment: 'sandbox' });
    expect((await suite.api.post('/v1/order', orderBody(), { apiKey: events!.apiKey })).status).toBe(200);
    expect((await suite.api.post('/v1/order', orderBody(), { apiKey: suite.apiKey })).status).toBe(200);
  });
});
