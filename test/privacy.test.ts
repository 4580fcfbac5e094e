/**
 * Erasing and exporting one customer (docs/privacy.md) through the local server and DynamoDB Local,
 * on a table of its own so a full scan sees every item: merchants A and B share a customer's e-mail
 * and card; the erasure at A leaves nothing of them at A, B untouched, the network as B alone made
 * it; a second run changes nothing; a restore of an earlier copy is erased again from the tombstone.
 */
import { describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `privacy-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  process.env.EXPORTS_BUCKET = 'exports-test';
});

const { startS3ObjectServer } = await import('../local/s3-stand-in.ts');
const s3 = await startS3ObjectServer();
process.env.S3_ENDPOINT = s3.endpoint;

const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
const { documentClient, dynamoDbClient, tableName } = await import('../shared/store/client.ts');
const { ensureTable } = await import('../shared/store/ensure-table.ts');
const { identityId } = await import('../shared/identity/identity-ids.ts');
const { keyedDigests } = await import('../shared/digests/identity-digests.ts');
const { readNetworkSecret } = await import('../shared/network/network-secret.ts');
const { reputationOf } = await import('../shared/network/reputation.ts');
const { networkKeys } = await import('../shared/store/keys.ts');
const { runPrivacyWorker } = await import('../shared/use-cases/privacy-requests.ts');
const { pendingOutboxEvents } = await import('../shared/store/webhook-deliveries.ts');
const { startWebhookReceiver } = await import('./support/webhook-receiver.ts');
const { admin } = await import('./support/admin.ts');
const { expectError, withOwnTableApi } = await import('./support/api.ts');
const { cardOf: cardRefOf, emailOf, placeOrder, storedRef } = await import('./support/commerce.ts');
const { networkMember } = await import('./support/console.ts');
const { customerAt: customerWith } = await import('./support/privacy.ts');
type Member = import('./support/privacy.ts').Member;
const { orderBody, uid } = await import('./support/fixtures.ts');
const { orderDecision } = await import('./support/lists.ts');
const { allItems, changedKeys, copyTable, merchantItems, tableSnapshot } = await import(
  './support/table-snapshot.ts'
);

const suite = withOwnTableApi(s3);
const customerAt = (m: Member, email: string, card: { BIN: string; last4: string; expiry: string }) =>
  customerWith(suite.api, m, email, card);

const privacy = (key: string, body: unknown) =>
  suite.api.request('POST', '/v1/privacy/requests', { apiKey: key, rawBody: JSON.stringify(body) });

/** Posts a request, runs the worker, and answers the request's status. */
async function completed(m: Member, body: unknown) {
  const accepted = await privacy(m.console, body);
  expect(accepted.status, accepted.text).toBe(202);
  const location = accepted.headers.get('location')!;
  expect(location).toBe(`/v1/privacy/requests/${accepted.body.requestId}`);
  expect(accepted.body.status).toBe('pending');
  await runPrivacyWorker();
  const shown = await suite.api.request('GET', location, { apiKey: m.console });
  expect(shown.status, shown.text).toBe(200);
  expect(shown.body.status).toBe('done');
  return shown.body;
}

const PRIVACY_RECORDS = new Set(['privacyRequest', 'privacyTombstone']);

/** A's items (the privacy request and tombstone aside: they keep digests by design) naming any of `words`. */
async function itemsOfNaming(merchantId: string, words: readonly string[], table = tableName) {
  const found: string[] = [];
  for (const item of await allItems(table)) {
    const ofMerchant = String(item.PK).startsWith(`M#${merchantId}#`) || item.SK === `M#${merchantId}`;
    if (!ofMerchant || PRIVACY_RECORDS.has(String(item.entity))) continue;
    const text = JSON.stringify(item, (_k, v: unknown) => (v instanceof Set ? [...v].map(String) : v));
    for (const word of words) if (text.includes(word)) found.push(`${item.PK}|${item.SK} names ${word}`);
  }
  return found;
}

async function networkPartition(networkKey: string) {
  const { Items } = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': networkKeys.reputation(networkKey).PK },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

describe('erase', () => {
  it('leaves nothing of the customer at A, B untouched, the network as B alone made it; a second run changes nothing; a later order is a new customer', async () => {
    const [a, b] = [await networkMember(suite.api), await networkMember(suite.api)];
    const email = `${uid('jane')}@example.com`;
    const card = { BIN: '411111', last4: String(1000 + Math.floor(Math.random() * 8999)), expiry: '09/29' };
    const atA = await customerAt(a, email, card);
    await customerAt(b, email, card);

    const digests = [
      await storedRef(a.merchantId, emailOf(atA.order)),
      await storedRef(a.merchantId, cardRefOf(atA.order)),
    ];
    const words = [
      ...digests.map((ref) => ref.digest),
      atA.order.providerOrderId,
      atA.returnId,
      atA.dispute.disputeId,
      atA.reviewId,
      email,
    ];
    expect(await itemsOfNaming(a.merchantId, words)).not.toEqual([]);
    const bBefore = await merchantItems(b.merchantId);
    const secret = await readNetworkSecret();
    // The network key is the same at every merchant: any digest key gives it.
    const cardNamed = cardRefOf(atA.order);
    const cardKey = keyedDigests(Buffer.alloc(32), secret)(cardNamed.kind, cardNamed.normalized).networkKey!;
    expect((await networkPartition(cardKey)).map((i) => i.SK).sort()).toEqual(
      ['REPUTATION', `M#${a.merchantId}`, `M#${b.merchantId}`].sort(),
    );

    const result = await completed(a, { type: 'erase', subject: { emails: [email], cards: [card] } });
    expect(result.counts).toMatchObject({
      events: 2,
      disputes: 1,
      dispositions: 0,
      reviews: 1,
      identities: 2,
      listEntries: expect.any(Number),
      auditEntries: expect.any(Number),
      networkContributions: expect.any(Number),
    });
    expect(result.counts.listEntries).toBeGreaterThan(0);
    expect(result.counts.auditEntries).toBeGreaterThan(0);
    expect(result.counts.links).toBeGreaterThan(0);
    expect(result.counts.networkContributions).toBeGreaterThanOrEqual(2);

    expect(await itemsOfNaming(a.merchantId, words)).toEqual([]);
    expect(changedKeys(bBefore, await merchantItems(b.merchantId))).toEqual([]);
    const partition = await networkPartition(cardKey);
    expect(partition.map((i) => i.SK).sort()).toEqual(['REPUTATION', `M#${b.merchantId}`].sort());
    const bLedger = partition.find((i) => i.SK === `M#${b.merchantId}`)!;
    const reputation = partition.find((i) => i.SK === 'REPUTATION')!;
    const bAlone = reputationOf([{ seenAt: bLedger.seenAt, causes: bLedger.causes }], Date.now());
    expect({ merchants: reputation.merchants, abuse: reputation.abuse }).toEqual({
      merchants: bAlone.merchants,
      abuse: bAlone.abuse,
    });

    // The erasure's own audit entry stays, naming no one.
    const audit = await suite.api.request('GET', '/v1/audit?limit=100', { apiKey: a.console });
    const erased = audit.body.items.find((e: { action: string }) => e.action === 'privacy.erased');
    expect(erased).toMatchObject({ subject: `erase ${result.requestId}`, detail: 'done' });
    expect(JSON.stringify(audit.body)).not.toContain(email);

    const before = await tableSnapshot();
    const again = await completed(a, { type: 'erase', subject: { emails: [email], cards: [card] } });
    expect(Object.values(again.counts).every((n) => n === 0)).toBe(true);
    const changed = changedKeys(before, await tableSnapshot());
    expect(changed.every((key) => /#PRIVACY#|#AUDIT\|/.test(key))).toBe(true);

    // Not a block: the same e-mail later scores at A as it does at a member that never saw it (both
    // read what B reported to the network).
    const fresh = await networkMember(suite.api);
    const later = (mail: string) =>
      orderBody({
        email: mail,
        card: { BIN: '522222', last4: '4444', expiry: '01/30' },
        device: uid('device'),
      });
    const atAAgain = orderDecision(await suite.api.post('/v1/order', later(email), { apiKey: a.apiKey }));
    const newcomer = orderDecision(await suite.api.post('/v1/order', later(email), { apiKey: fresh.apiKey }));
    expect({ score: atAAgain.abuseScore, decision: atAAgain.decision }).toEqual({
      score: newcomer.abuseScore,
      decision: newcomer.decision,
    });
  });

  it('a table restored from before an erasure is erased again from the tombstones (admin CLI)', async () => {
    const [a, b] = [await networkMember(suite.api), await networkMember(suite.api)];
    const email = `${uid('restore')}@example.com`;
    const card = { BIN: '433333', last4: String(1000 + Math.floor(Math.random() * 8999)), expiry: '03/30' };
    const atA = await customerAt(a, email, card);
    await customerAt(b, email, card);
    const words = [
      (await storedRef(a.merchantId, emailOf(atA.order))).digest,
      atA.order.providerOrderId,
      atA.dispute.disputeId,
    ];

    // The restore: a new table as this one was before the erasure (point-in-time recovery makes one).
    const restored = `${tableName}-restored`;
    await ensureTable(dynamoDbClient, restored, { stream: false });
    await copyTable(restored, () => true);
    await completed(a, { type: 'erase', subject: { emails: [email], cards: [card] } });
    expect(await itemsOfNaming(a.merchantId, words)).toEqual([]);
    expect(await itemsOfNaming(a.merchantId, words, restored)).not.toEqual([]);

    const bBefore = await merchantItems(b.merchantId, restored);
    const replay = await admin('privacy', 'replay-tombstones', '--from-table', tableName, {
      TABLE_NAME: restored,
    });
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).erased.length).toBeGreaterThan(0);
    expect(await itemsOfNaming(a.merchantId, words, restored)).toEqual([]);
    expect(changedKeys(bBefore, await merchantItems(b.merchantId, restored))).toEqual([]);
  });
});

describe('erase, webhooks', () => {
  it('finds the customer’s outbox items still waiting to be fanned out, which no delivery names yet', async () => {
    const a = await networkMember(suite.api);
    const receiver = await startWebhookReceiver();
    try {
      const created = await suite.api.request('POST', '/v1/webhooks', {
        apiKey: a.console,
        rawBody: JSON.stringify({ url: receiver.url, events: ['decision.created'] }),
      });
      expect(created.status, created.text).toBe(200);
      const email = `${uid('outbox')}@example.com`;
      const order = await placeOrder(suite.api, a.apiKey, { email });
      const naming = async () =>
        (await pendingOutboxEvents(100, a.merchantId)).filter((e) => e.body.includes(order.providerOrderId));
      expect(await naming()).toHaveLength(1);

      const result = await completed(a, { type: 'erase', subject: { emails: [email] } });
      expect(result.counts.webhookItems).toBe(1);
      expect(await naming()).toEqual([]);
      expect(await itemsOfNaming(a.merchantId, [order.providerOrderId])).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describe('export', () => {
  it('writes every kind of record the customer has at A, nothing of B’s, behind a link that expires; audited', async () => {
    const [a, b] = [await networkMember(suite.api), await networkMember(suite.api)];
    const email = `${uid('export')}@example.com`;
    const card = { BIN: '455555', last4: String(1000 + Math.floor(Math.random() * 8999)), expiry: '05/30' };
    const atA = await customerAt(a, email, card);
    const atB = await customerAt(b, email, card);

    const result = await completed(a, { type: 'export', subject: { emails: [email], cards: [card] } });
    const url = new URL(result.exportUrl);
    // Each read signs a short link (a Lambda role's credentials end sooner than the export).
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(Date.parse(result.exportExpiresAt)).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    const download = await fetch(url);
    expect(download.status).toBe(200);
    const document = JSON.parse(await download.text());
    for (const kind of ['events', 'disputes', 'reviews', 'identities', 'listEntries', 'networkContributions'])
      expect(document.records[kind].length, kind).toBeGreaterThan(0);
    expect(Object.keys(document.recordKinds).sort()).toEqual(Object.keys(result.counts).sort());
    expect(document.fields.identities).toMatch(/digest/);
    const text = JSON.stringify(document);
    expect(text).toContain(atA.order.providerOrderId);
    expect(text).not.toContain(b.merchantId);
    expect(text).not.toContain(atB.order.providerOrderId);
    expect(document.identities).toEqual([
      identityId(await storedRef(a.merchantId, emailOf(atA.order))),
      identityId(await storedRef(a.merchantId, cardRefOf(atA.order))),
    ]);

    // An export changes nothing but its own request, and is audited.
    const audit = await suite.api.request('GET', '/v1/audit?limit=100', { apiKey: a.console });
    const actions = audit.body.items.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['privacy.requested', 'privacy.exported']));
  });
});

describe('list', () => {
  it('lists the merchant’s requests newest first, page by page, with kinds and counts, never the identifiers', async () => {
    const [a, b] = [await networkMember(suite.api), await networkMember(suite.api)];
    const order = await placeOrder(suite.api, a.apiKey);
    const email = order.customer.contactInformation[0]!.address as string;
    const card = { BIN: '466666', last4: '1234', expiry: '07/31' };
    const list = (key: string, query = '') =>
      suite.api.request('GET', `/v1/privacy/requests${query}`, { apiKey: key });
    expect((await list(a.console)).body).toEqual({ items: [] });

    const exported = await privacy(a.console, {
      type: 'export',
      subject: { emails: [email], cards: [card] },
    });
    const erased = await privacy(a.console, { type: 'erase', subject: { customerIds: ['cus-list-1'] } });
    const atB = await privacy(b.console, { type: 'export', subject: { emails: [email] } });
    for (const accepted of [exported, erased, atB]) expect(accepted.status, accepted.text).toBe(202);

    const pending = await list(a.console);
    expect(pending.status, pending.text).toBe(200);
    expect(pending.body.items).toEqual([
      expect.objectContaining({
        requestId: erased.body.requestId,
        type: 'erase',
        status: 'pending',
        identifiers: 1,
        identifierKinds: { customer: 1 },
      }),
      expect.objectContaining({
        requestId: exported.body.requestId,
        type: 'export',
        status: 'pending',
        identifiers: 2,
        identifierKinds: { email: 1, card: 1 },
      }),
    ]);

    await runPrivacyWorker();
    const done = await list(a.console);
    expect(done.body.items.map((r: { status: string }) => r.status)).toEqual(['done', 'done']);
    const [erase, exportDone] = done.body.items;
    expect(erase.counts).toBeDefined();
    expect(erase.exportUrl).toBeUndefined();
    expect(exportDone.counts.events).toBe(1);
    // The same link GET on the request answers: signed now, for the export's own document.
    const shown = await suite.api.request('GET', `/v1/privacy/requests/${exportDone.requestId}`, {
      apiKey: a.console,
    });
    expect(new URL(exportDone.exportUrl).pathname).toBe(new URL(shown.body.exportUrl).pathname);
    expect((await fetch(exportDone.exportUrl)).status).toBe(200);
    const text = JSON.stringify(done.body);
    for (const value of [email, card.BIN, card.last4, 'cus-list-1', b.merchantId])
      expect(text).not.toContain(value);

    const first = await list(a.console, '?limit=1');
    expect(first.body.items.map((r: { requestId: string }) => r.requestId)).toEqual([erased.body.requestId]);
    const second = await list(a.console, `?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.items.map((r: { requestId: string }) => r.requestId)).toEqual([
      exported.body.requestId,
    ]);
    // DynamoDB may hand a cursor after the last item: the page it leads to is empty, and the last.
    if (second.body.nextCursor) {
      const third = await list(a.console, `?limit=1&cursor=${second.body.nextCursor}`);
      expect(third.body).toEqual({ items: [] });
    }
    // B sees its own request only; A's cursor does not lead into B's requests, nor B's into A's.
    expect((await list(b.console)).body.items.map((r: { requestId: string }) => r.requestId)).toEqual([
      atB.body.requestId,
    ]);
    expectError(
      await list(b.console, `?limit=1&cursor=${first.body.nextCursor}`),
      400,
      'invalid_request',
      'cursor',
    );
    const zero = await list(a.console, '?limit=0');
    expect({ status: zero.status, field: zero.body.error?.field }).toEqual({ status: 422, field: 'limit' });
    expect((await list(a.apiKey)).status).toBe(403);
  });
});

describe('bad input', () => {
  it('an unknown identity kind, a malformed value or an empty subject: 422 naming the field, nothing written', async () => {
    const a = await networkMember(suite.api);
    const before = await tableSnapshot();
    expectError(
      await privacy(a.console, { type: 'erase', subject: { ssns: ['078-05-1120'] } }),
      422,
      'unknown_field',
      'subject.ssns',
    );
    const malformed = await privacy(a.console, { type: 'erase', subject: { emails: ['not-an-email'] } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.error.field).toBe('subject.emails[0]');
    const empty = await privacy(a.console, { type: 'export', subject: { emails: [] } });
    expect(empty.status).toBe(422);
    expect(empty.body.error.field).toBe('subject');
    const kind = await privacy(a.console, { type: 'forget', subject: { emails: ['a@example.com'] } });
    expect(kind.status).toBe(422);
    expect(kind.body.error.field).toBe('type');
    expect(changedKeys(before, await tableSnapshot())).toEqual([]);
    expect(
      (await suite.api.request('GET', '/v1/privacy/requests/prv_none', { apiKey: a.console })).status,
    ).toBe(404);
  });
});

// The events key may not ask: privacy requests take a console key.
describe('scope', () => {
  it('an events key is refused', async () => {
    const a = await networkMember(suite.api);
    const response = await privacy(a.apiKey, { type: 'export', subject: { emails: ['a@example.com'] } });
    expect(response.status).toBe(403);
  });
});

describe('admin CLI', () => {
  it('privacy erase checks the subject as the API does, then erases and prints the counts', async () => {
    const a = await networkMember(suite.api);
    const order = await placeOrder(suite.api, a.apiKey);
    const email = order.customer.contactInformation[0]!.address as string;
    const refused = await admin('privacy', 'erase', '--merchant', a.merchantId, '--subject', '{"emails":[]}');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('subject');
    const erased = await admin(
      'privacy',
      'erase',
      '--merchant',
      a.merchantId,
      '--subject',
      JSON.stringify({ emails: [email] }),
    );
    expect(erased.code, erased.stderr).toBe(0);
    const shown = JSON.parse(erased.stdout);
    expect(shown).toMatchObject({ type: 'erase', status: 'done', counts: { events: 1, identities: 1 } });
    expect(await itemsOfNaming(a.merchantId, [order.providerOrderId])).toEqual([]);
  });
});
