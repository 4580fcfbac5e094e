import { describe, expect, it } from 'vitest';
import { normalizeEmail } from '../../shared/identity/identities.ts';
import { MARKERS_ATTRIBUTE } from '../../shared/store/list-markers.ts';
import { admin } from '../support/admin.ts';
import { expectError, withTestApi } from '../support/api.ts';
import { countersOf, named, storedRef } from '../support/commerce.ts';
import { consoleKey } from '../support/console.ts';
import { uid } from '../support/fixtures.ts';
import { listsApi } from '../support/lists.ts';

/** The management API's lists (console scope) and the admin CLI's `lists` commands. */
const suite = withTestApi();

const HOUR_MS = 3_600_000;

describe('management API: /v1/lists and /v1/list-rules', () => {
  it('adds, shows, lists (filtered, paged) and removes entries, each change audited with the key holder', async () => {
    const lists = listsApi(suite.api, await consoleKey(suite.merchantId, 'ana@acme.example'));
    const email = `${uid('Jane.Doe')}@Example.com`;
    const expiresAt = new Date(Date.now() + 48 * HOUR_MS).toISOString();
    const added = await lists.add({
      list: 'watch',
      identity: { kind: 'email', value: email },
      reason: 'friendly fraud suspected',
      expiresAt,
      eventTypes: ['order', 'return'],
    });
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({
      list: 'watch',
      kind: 'email',
      identity: `j***@example.com`,
      reason: 'friendly fraud suspected',
      source: 'manual',
      createdBy: 'ana@acme.example',
      expiresAt,
      eventTypes: ['order', 'return'],
      status: 'active',
    });
    // The table holds the digest, never the address.
    expect(added.text.toLowerCase()).not.toContain(email.toLowerCase());
    const email_ = named('email', normalizeEmail(email));
    const ref = await storedRef(suite.merchantId, email_);
    expect(added.body.identityDigest).toBe(ref.digest.slice(0, 8));
    expect(String((await countersOf(suite.merchantId, email_))[MARKERS_ATTRIBUTE])).toContain(
      added.body.entryId.slice(3),
    );

    const card = await lists.add({
      list: 'block',
      identity: { kind: 'card', value: { BIN: '411111', last4: '1234', expiry: '09/27' } },
      reason: 'stolen',
      source: 'rule',
    });
    expect(card.body).toMatchObject({ identity: 'card 411111…1234 09/27', source: 'rule' });
    const address = await lists.add({
      list: 'watch',
      identity: { kind: 'address', value: { line1: '1 Drop St', postalCode: '10001', country: 'US' } },
      reason: 'reshipper',
    });
    expect(address.body.identity).toBe('address … 10001 US');

    expect((await lists.show(added.body.entryId)).body).toEqual(added.body);
    expect((await lists.list('list=block')).body.items.map((e: { entryId: string }) => e.entryId)).toEqual([
      card.body.entryId,
    ]);
    expect((await lists.list('kind=address')).body.items).toHaveLength(1);
    const first = await lists.list('limit=2');
    expect(first.body.items.map((e: { entryId: string }) => e.entryId)).toEqual([
      address.body.entryId,
      card.body.entryId,
    ]);
    const second = await lists.list(`limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.items.map((e: { entryId: string }) => e.entryId)).toEqual([added.body.entryId]);

    const removed = await lists.remove(card.body.entryId);
    expect(removed.body).toEqual({ entryId: card.body.entryId, deleted: true });
    expectError(await lists.show(card.body.entryId), 404, 'not_found');
    expectError(await lists.remove(card.body.entryId), 404, 'not_found');

    const audit = (await lists.audit()).body.items as { action: string; subject: string; keyName: string }[];
    expect(
      audit.filter((a) => a.keyName === 'ana@acme.example').map((a) => `${a.action} ${a.subject}`),
    ).toEqual([
      `listEntry.removed ${card.body.entryId}`,
      `listEntry.added ${address.body.entryId}`,
      `listEntry.added ${card.body.entryId}`,
      `listEntry.added ${added.body.entryId}`,
    ]);
  });

  it('answers a repeated add with the entry it made, and 409 for the same identity with another reason', async () => {
    const lists = listsApi(suite.api, await consoleKey(suite.merchantId));
    const body = {
      list: 'block',
      identity: { kind: 'device', value: uid('device') },
      reason: 'emulator farm',
    };
    const first = await lists.add(body);
    const again = await lists.add(body);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.entryId).toBe(first.body.entryId);
    expectError(
      await lists.add({ ...body, reason: 'another reason' }),
      409,
      'duplicate_list_entry',
      'identity',
    );
    // Another list is another entry.
    expect((await lists.add({ ...body, list: 'watch' })).body.entryId).not.toBe(first.body.entryId);
  });

  it('refuses bad input with 422 naming the field, and writes nothing', async () => {
    const merchant = await import('../support/api.ts').then((m) => m.newMerchant());
    const lists = listsApi(suite.api, await consoleKey(merchant.merchantId));
    const email = `${uid('x')}@example.com`;
    const good = { list: 'block', identity: { kind: 'email', value: email }, reason: 'r' };
    const cases: [unknown, number, string, string][] = [
      [{ ...good, list: 'grey' }, 422, 'unprocessable_entity', 'list'],
      [
        { ...good, identity: { kind: 'ip', value: '10.0.0.1' } },
        422,
        'unprocessable_entity',
        'identity.kind',
      ],
      [
        { ...good, identity: { kind: 'email', value: 'not-an-email' } },
        422,
        'unprocessable_entity',
        'identity.value',
      ],
      [
        { ...good, identity: { kind: 'card', value: { BIN: '41', last4: '1234' } } },
        422,
        'unprocessable_entity',
        'identity.value.BIN',
      ],
      [
        { ...good, identity: { kind: 'address', value: { country: 'US' } } },
        422,
        'unprocessable_entity',
        'identity.value',
      ],
      [
        { ...good, expiresAt: new Date(Date.now() - 60_000).toISOString() },
        422,
        'unprocessable_entity',
        'expiresAt',
      ],
      [{ ...good, expiresAt: 'tomorrow' }, 422, 'unprocessable_entity', 'expiresAt'],
      [{ ...good, eventTypes: ['order', 'order'] }, 422, 'unprocessable_entity', 'eventTypes'],
      [{ ...good, source: 'feedback' }, 422, 'unprocessable_entity', 'source'],
      [
        { ...good, list: 'allow', identity: { kind: 'device', value: 'd-1' } },
        422,
        'unprocessable_entity',
        'identity.kind',
      ],
      [{ ...good, reason: 'x'.repeat(1_025) }, 422, 'unprocessable_entity', 'reason'],
      [{ ...good, colour: 'red' }, 422, 'unknown_field', 'colour'],
      [{ list: 'block', identity: { kind: 'email', value: email } }, 400, 'invalid_request', 'reason'],
    ];
    for (const [body, status, code, field] of cases) expectError(await lists.add(body), status, code, field);
    expectError(
      await lists.saveRules({ lostFraudChargeback: 'yes', abusiveDisposition: true, abuseReview: true }),
      400,
      'invalid_request',
      'lostFraudChargeback',
    );
    expectError(await lists.list('list=grey'), 422, 'unprocessable_entity', 'list');
    expect((await lists.list()).body.items).toEqual([]);
    // Only the keys the test made are in the log.
    const audited = (await lists.audit()).body.items as { action: string }[];
    expect(audited.filter((entry) => entry.action !== 'apiKey.created')).toEqual([]);
    expect(await countersOf(merchant.merchantId, named('email', normalizeEmail(email)))).toEqual({});
  });

  it('shows and switches the feedback rules (on by default), audited', async () => {
    const merchant = await import('../support/api.ts').then((m) => m.newMerchant());
    const lists = listsApi(suite.api, await consoleKey(merchant.merchantId, 'ben@acme.example'));
    expect((await lists.rules()).body).toEqual({
      lostFraudChargeback: true,
      abusiveDisposition: true,
      abuseReview: true,
    });
    const off = { lostFraudChargeback: true, abusiveDisposition: false, abuseReview: true };
    expect((await lists.saveRules(off)).body).toEqual(off);
    expect((await lists.rules()).body).toEqual(off);
    expect((await lists.audit()).body.items[0]).toMatchObject({
      action: 'listRules.saved',
      keyName: 'ben@acme.example',
      detail: 'lostFraudChargeback on, abusiveDisposition off, abuseReview on',
    });
  });

  it('refuses an events key with 403 on every list endpoint', async () => {
    for (const [method, path] of [
      ['GET', '/v1/lists'],
      ['POST', '/v1/lists'],
      ['GET', '/v1/lists/le_x'],
      ['DELETE', '/v1/lists/le_x'],
      ['GET', '/v1/list-rules'],
      ['PUT', '/v1/list-rules'],
    ] as const) {
      const body = method === 'GET' ? {} : { rawBody: '{}' };
      expectError(await suite.api.request(method, path, { apiKey: suite.apiKey, ...body }), 403, 'forbidden');
    }
  });
});

describe('admin CLI: lists', () => {
  it('adds, shows, lists and removes entries and switches rules, audited as the admin CLI', async () => {
    const merchant = await import('../support/api.ts').then((m) => m.newMerchant());
    const merchantId = merchant.merchantId;
    const json = (result: { stdout: string }) => JSON.parse(result.stdout);
    const added = await admin(
      'lists',
      'add',
      '--merchant',
      merchantId,
      '--list',
      'block',
      '--kind',
      'card',
      '--value',
      '{"BIN":"520000","last4":"0007"}',
      '--reason',
      'issuer alert',
      '--event-types',
      'order',
    );
    expect(added.code, added.stderr).toBe(0);
    const entry = json(added).entry;
    expect(entry).toMatchObject({
      list: 'block',
      identity: 'card 520000…0007',
      createdBy: 'admin CLI',
      eventTypes: ['order'],
    });
    expect(
      json(await admin('lists', 'show', '--merchant', merchantId, '--entry', entry.entryId)).entry.entryId,
    ).toBe(entry.entryId);
    expect(json(await admin('lists', 'list', '--merchant', merchantId, '--list', 'block')).count).toBe(1);

    const bad = await admin(
      'lists',
      'add',
      '--merchant',
      merchantId,
      '--list',
      'allow',
      '--kind',
      'device',
      '--value',
      'd',
      '--reason',
      'r',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('identity.kind');
    const unknown = await admin('lists', 'show', '--merchant', merchantId, '--entry', 'le_nothing00');
    expect(unknown.code).toBe(1);

    const rules = await admin('lists', 'rules', '--merchant', merchantId, '--abuse-review', 'off');
    expect(json(rules).rules).toEqual({
      lostFraudChargeback: true,
      abusiveDisposition: true,
      abuseReview: false,
    });
    expect((await admin('lists', 'rules', '--merchant', merchantId, '--abuse-review', 'maybe')).code).toBe(2);

    expect((await admin('lists', 'remove', '--merchant', merchantId, '--entry', entry.entryId)).code).toBe(0);
    const lists = listsApi(suite.api, await consoleKey(merchantId));
    expect((await lists.list()).body.items).toEqual([]);
    const audit = (await lists.audit()).body.items as { action: string; keyName: string }[];
    const changes = audit.filter((a) => a.action !== 'apiKey.created');
    expect(changes.map((a) => `${a.action} ${a.keyName}`)).toEqual([
      'listEntry.removed admin CLI',
      'listRules.saved admin CLI',
      'listEntry.added admin CLI',
    ]);
  });
});
