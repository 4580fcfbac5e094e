import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { itemBytes } from '../shared/store/item-size.ts';
import { MARKERS_ATTRIBUTE, MAX_MARKER_BYTES } from '../shared/store/list-markers.ts';
import { withTestApi } from './support/api.ts';
import {
  countersOf,
  deviceOf,
  disputeEntry,
  itemDisposition,
  placeOrder,
  returnBody,
  storedRef,
} from './support/commerce.ts';
import { consoleKey, reviewEveryReturn, saveWorkflow } from './support/console.ts';
import { orderBody, uid } from './support/fixtures.ts';
import {
  cardOf,
  listsApi,
  orderDecision,
  orderWithLostFraudChargeback,
  reportDispute,
} from './support/lists.ts';

/**
 * Block, watch and allow lists through the local server and DynamoDB Local: the feedback rules
 * fill them, decisions follow them, and their counterparts empty them.
 */
const suite = withTestApi();

const DAY_MS = 86_400_000;

async function setup() {
  const key = await consoleKey(suite.merchantId, 'ana@acme.example');
  return { lists: listsApi(suite.api, key), key };
}

describe('lostFraudChargeback', () => {
  it('blocks the card for orders: the next order on it from a new e-mail is declined with the entry in its reason; WON takes it off', async () => {
    const { api, apiKey } = suite;
    const { lists } = await setup();
    const lostAt = Date.now() - 5_000;
    const { order, dispute } = await orderWithLostFraudChargeback(api, apiKey, {}, lostAt);

    const entries = (await lists.all('source=feedback')).filter(
      (e) => e.cause === `dispute:${dispute.disputeId}`,
    );
    expect(entries.map((e) => `${e.list} ${e.kind}`).sort()).toEqual([
      'block card',
      'watch address',
      'watch device',
    ]);
    const block = entries.find((e) => e.list === 'block')!;
    expect(block).toMatchObject({
      source: 'feedback',
      createdBy: 'lostFraudChargeback',
      eventTypes: ['order'],
      status: 'active',
      identity: `card of order ${order.providerOrderId}`,
    });
    expect(block.reason).toBe(
      `lost fraud chargeback on order ${order.providerOrderId} (dispute ${dispute.disputeId}, reason FRAUD)`,
    );

    const next = orderBody({ card: cardOf(order), timestamp: Date.now() });
    const declined = orderDecision(await api.post('/v1/order', next, { apiKey }));
    expect(declined).toMatchObject({ decision: 'DECLINE', subDecision: 'block_list' });
    const day = new Date(lostAt);
    const month = day.toLocaleString('en-GB', { month: 'short', timeZone: 'UTC' });
    expect(declined.decisionReason).toMatch(
      new RegExp(
        `^card blocked: lost fraud chargeback on order ${order.providerOrderId.slice(0, 11)}.* on ${day.getUTCDate()} ${month} ${day.getUTCFullYear()}; `,
      ),
    );

    // The audit log names the rule for each entry it made.
    const audit = (await lists.audit()).body.items.filter((a: { subject: string }) =>
      entries.some((e) => e.entryId === a.subject),
    );
    expect(audit.map((a: { action: string; keyName: string }) => `${a.action} ${a.keyName}`)).toEqual(
      entries.map(() => 'listEntry.added lostFraudChargeback'),
    );

    await reportDispute(api, apiKey, order.providerOrderId, {
      ...dispute,
      disputeStatus: 'WON',
      timestamp: lostAt + 1_000,
    });
    expect(
      (await lists.all('source=feedback')).filter((e) => e.cause === `dispute:${dispute.disputeId}`),
    ).toEqual([]);
    const after = orderDecision(
      await api.post('/v1/order', orderBody({ card: cardOf(order), timestamp: Date.now() }), { apiKey }),
    );
    expect(after.subDecision).not.toBe('block_list');
    const removed = (await lists.audit()).body.items.filter(
      (a: { action: string }) => a.action === 'listEntry.removed',
    );
    expect(removed.map((a: { subject: string }) => a.subject).sort()).toEqual(
      entries.map((e) => e.entryId).sort(),
    );
  });

  it('does not act on an event from before the chargeback was lost (a late or back-filled order)', async () => {
    const { api, apiKey } = suite;
    const lostAt = Date.now() - 10 * 60_000;
    const { order } = await orderWithLostFraudChargeback(api, apiKey, {}, lostAt);
    const late = orderBody({ card: cardOf(order), timestamp: lostAt - 60_000 });
    expect(orderDecision(await api.post('/v1/order', late, { apiKey })).subDecision).not.toBe('block_list');
    const live = orderBody({ card: cardOf(order), timestamp: Date.now() });
    expect(orderDecision(await api.post('/v1/order', live, { apiKey })).subDecision).toBe('block_list');
  });

  it('blocks only for orders, and not for a reason that is not fraud, an inquiry, or with the rule off', async () => {
    const { api, apiKey } = suite;
    const { lists } = await setup();
    const { order } = await orderWithLostFraudChargeback(api, apiKey);
    // A return of a blocked card's order is not blocked: the block is scoped to orders.
    const returned = await api.post('/v1/return', returnBody(order, { timestamp: Date.now() }), { apiKey });
    expect(returned.body.returnedLineItems[0].subDecision).not.toBe('block_list');

    for (const [reason, type] of [
      ['INR', 'CHARGEBACK'],
      ['FRAUD', 'INQUIRY'],
    ] as const) {
      const other = await placeOrder(api, apiKey);
      const lost = disputeEntry({ disputeStatus: 'LOST', disputeReason: reason, disputeType: type });
      await reportDispute(api, apiKey, other.providerOrderId, lost);
      expect((await lists.all()).filter((e) => e.cause === `dispute:${lost.disputeId}`)).toEqual([]);
    }

    expect(
      (await lists.saveRules({ lostFraudChargeback: false, abusiveDisposition: true, abuseReview: true }))
        .status,
    ).toBe(200);
    const off = await placeOrder(api, apiKey);
    const lost = disputeEntry({ disputeStatus: 'LOST', disputeReason: '10.4' });
    await reportDispute(api, apiKey, off.providerOrderId, lost);
    expect((await lists.all()).filter((e) => e.cause === `dispute:${lost.disputeId}`)).toEqual([]);
    await lists.saveRules({ lostFraudChargeback: true, abusiveDisposition: true, abuseReview: true });
  });

  it('adds each entry once when the same lost chargeback is reported by concurrent calls', async () => {
    const { api, apiKey } = suite;
    const { lists } = await setup();
    const order = await placeOrder(api, apiKey);
    const lost = disputeEntry({ disputeStatus: 'LOST', disputeReason: '4837' });
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        api.post(`/v1/order/dispute/${order.providerOrderId}`, { dispute: [lost] }, { apiKey }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    const entries = (await lists.all()).filter((e) => e.cause === `dispute:${lost.disputeId}`);
    expect(entries).toHaveLength(3);
    const added = (await lists.audit()).body.items.filter(
      (a: { action: string; subject: string }) =>
        a.action === 'listEntry.added' && entries.some((e) => e.entryId === a.subject),
    );
    expect(added).toHaveLength(3);
  });
});

describe('the watch list on decisions (model signals)', () => {
  it('a watched device declines a new e-mail’s order and approves a household member’s with months of history', async () => {
    const { api, apiKey } = suite;
    const device = uid('family-tablet');
    const household = `${uid('parent')}@example.com`;
    await placeOrder(api, apiKey, { email: household, device, timestamp: Date.now() - 120 * DAY_MS });
    await placeOrder(api, apiKey, { email: household, device, timestamp: Date.now() - 60 * DAY_MS });
    // A fraudster used the tablet's network... and its device: the chargeback is lost today.
    await orderWithLostFraudChargeback(api, apiKey, { device });

    // The household's next order first (the ring's, an order a second before, would be velocity).
    const member = orderDecision(
      await api.post('/v1/order', orderBody({ email: household, device, timestamp: Date.now() }), { apiKey }),
    );
    expect(member.decision).toBe('APPROVE');
    expect(member.abuseScore, member.decisionReason).toBeLessThan(50);
    const ring = orderDecision(
      await api.post('/v1/order', orderBody({ device, timestamp: Date.now() }), { apiKey }),
    );
    expect(ring).toMatchObject({ decision: 'DECLINE', subDecision: 'high_abuse_score' });
    expect(ring.decisionReason).toMatch(
      /device on the watch list since .* \(lost fraud chargeback on order .*\); e-mail first seen after it/,
    );
    expect(member.abuseScore).toBeLessThan(ring.abuseScore);
  });

  it('a newcomer weighs less on a family’s device listed after months of clean orders than on a ring’s', async () => {
    const { api, apiKey } = suite;
    const family = uid('family-laptop');
    const parents = [`${uid('mum')}@example.com`, `${uid('dad')}@example.com`];
    for (const [i, days] of [150, 120, 100, 80, 60, 40].entries()) {
      await placeOrder(api, apiKey, {
        email: parents[i % 2],
        device: family,
        timestamp: Date.now() - days * DAY_MS,
      });
    }
    // One of the family's orders disputed as fraud (a purchase the cardholder did not know of).
    const disputed = await placeOrder(api, apiKey, {
      email: parents[0],
      device: family,
      timestamp: Date.now() - 30 * DAY_MS,
    });
    const lostAt = Date.now() - DAY_MS;
    const lost = disputeEntry({ disputeStatus: 'LOST', disputeReason: 'FRAUD', timestamp: lostAt });
    await reportDispute(api, apiKey, disputed.providerOrderId, lost);
    const ring = uid('ring-laptop');
    await orderWithLostFraudChargeback(api, apiKey, { device: ring }, lostAt);

    const newcomer = (device: string) =>
      api.post('/v1/order', orderBody({ device, timestamp: Date.now() }), { apiKey }).then(orderDecision);
    const onFamily = await newcomer(family);
    const onRing = await newcomer(ring);
    expect(onRing.decision).toBe('DECLINE');
    // The family's device is shared by two e-mails and lost a chargeback: those signals stay; the
    // watch weighs e^-(6/3) of a ring's (7 kept orders at the entry, less its chargeback).
    expect(onFamily.abuseScore, onFamily.decisionReason).toBeLessThan(onRing.abuseScore - 10);
  });

  it('a newcomer named another member of the family (its surname, another first name) at its home is approved; under the disputer’s own name or a stranger’s, not', async () => {
    const { api, apiKey } = suite;
    const laptop = uid('family-laptop');
    const home = `${uid('home')} Elm St`;
    const [ana, luis] = [
      { first: 'Ana', last: 'Ortega' },
      { first: 'Luis', last: 'Ortega' },
    ];
    const parents = [
      { email: `${uid('ana')}@example.com`, name: ana },
      { email: `${uid('luis')}@example.com`, name: luis },
    ];
    for (const [i, days] of [150, 120, 100, 80, 60, 40].entries()) {
      await placeOrder(api, apiKey, {
        ...parents[i % 2],
        device: laptop,
        street: home,
        timestamp: Date.now() - days * DAY_MS,
      });
    }
    const disputed = await placeOrder(api, apiKey, {
      ...parents[0],
      device: laptop,
      street: home,
      timestamp: Date.now() - 30 * DAY_MS,
    });
    const lost = disputeEntry({
      disputeStatus: 'LOST',
      disputeReason: 'FRAUD',
      timestamp: Date.now() - DAY_MS,
    });
    await reportDispute(api, apiKey, disputed.providerOrderId, lost);

    // Each a new e-mail on the laptop, shipping home, a second apart (none of them the others' velocity).
    const newcomer = (name: { first: string; last: string }, offset: number) =>
      api
        .post(
          '/v1/order',
          orderBody({ name, device: laptop, street: home, timestamp: Date.now() - 60_000 + offset }),
          { apiKey },
        )
        .then(orderDecision);
    const daughter = await newcomer({ first: 'Sofia', last: 'Ortega' }, 0);
    expect(daughter.decision, daughter.decisionReason).toBe('APPROVE');
    const again = await newcomer(ana, 1_000);
    const stranger = await newcomer({ first: 'Mark', last: 'Bell' }, 2_000);
    for (const other of [again, stranger]) {
      expect(other.decision, other.decisionReason).toBe('DECLINE');
      expect(other.decisionReason).toMatch(/on the watch list since .*; e-mail first seen after it/);
    }
  });

  it('a fraudster back after the chargeback on the same device and drop, with a new e-mail and card, is not approved', async () => {
    const { api, apiKey } = suite;
    const device = uid('fraud-laptop');
    const drop = `${uid('drop')} Dock Rd`;
    // The ring's order, charged back as fraud weeks later.
    const fraud = await placeOrder(api, apiKey, {
      device,
      street: drop,
      timestamp: Date.now() - 30 * DAY_MS,
    });
    const lost = disputeEntry({
      disputeStatus: 'LOST',
      disputeReason: 'FRAUD',
      timestamp: Date.now() - 3 * DAY_MS,
    });
    await reportDispute(api, apiKey, fraud.providerOrderId, lost);

    const back = orderDecision(
      await api.post('/v1/order', orderBody({ device, street: drop, timestamp: Date.now() }), { apiKey }),
    );
    expect(back.decision, back.decisionReason).not.toBe('APPROVE');
    expect(back.decisionReason).toMatch(/on the watch list since .*; e-mail first seen after it/);
  });
});

describe('abusiveDisposition and abuseReview', () => {
  it('an empty box watches the return’s e-mail, card, device and address; a clean disposition takes them off', async () => {
    const { api, apiKey } = suite;
    const { lists } = await setup();
    const order = await placeOrder(api, apiKey);
    const body = returnBody(order);
    expect((await api.post('/v1/return', body, { apiKey })).status).toBe(200);
    const dispose = (condition: string, outcome: string) =>
      api.post(
        `/v1/return/disposition/${body.providerReturnId}`,
        { itemDispositions: [itemDisposition(order, 0, condition, outcome)] },
        { apiKey },
      );
    expect((await dispose('EMPTY_BOX', 'REMOVE_SUSPECT_ABUSE')).status).toBe(200);
    const cause = `disposition:${body.providerReturnId}`;
    const entries = (await lists.all()).filter((e) => e.cause === cause);
    expect(entries.map((e) => `${e.list} ${e.kind}`).sort()).toEqual([
      'watch address',
      'watch card',
      'watch device',
      'watch device',
      'watch email',
    ]);
    expect(entries[0]!.reason).toBe(`empty box on return ${body.providerReturnId}`);
    // Damage in transit is not the customer's doing: no entries; a clean verdict takes them off.
    expect((await dispose('DAMAGED_ITEM', 'REMOVE_SUSPECT_ABUSE')).status).toBe(200);
    expect((await lists.all()).filter((e) => e.cause === cause)).toEqual([]);
  });

  it('a review resolved as abuse watches the event’s identities; a legitimate one takes a return’s disposition entries off', async () => {
    const { api, apiKey } = suite;
    const { lists, key } = await setup();
    expect((await saveWorkflow(api, key, 'return', reviewEveryReturn)).status).toBe(200);
    try {
      const resolveLatest = async (outcome: string, providerReturnId: string) => {
        const queue = await api.request('GET', '/v1/reviews?eventType=return&limit=100', { apiKey: key });
        const review = queue.body.items.find(
          (r: { providerId: string }) => r.providerId === providerReturnId,
        );
        const resolved = await api.post(
          `/v1/reviews/${review.reviewId}/resolve`,
          { outcome },
          { apiKey: key },
        );
        expect(resolved.status).toBe(200);
        return review.reviewId as string;
      };
      const first = await placeOrder(api, apiKey);
      const abusive = returnBody(first);
      await api.post('/v1/return', abusive, { apiKey });
      const reviewId = await resolveLatest('abuse', abusive.providerReturnId);
      const watched = (await lists.all()).filter((e) => e.cause === `review:${reviewId}`);
      expect(watched.map((e) => e.kind).sort()).toEqual(['address', 'card', 'device', 'device', 'email']);
      expect(watched[0]!.reason).toBe(`abuse confirmed in review of return ${abusive.providerReturnId}`);

      const second = await placeOrder(api, apiKey);
      const vouched = returnBody(second);
      await api.post('/v1/return', vouched, { apiKey });
      await api.post(
        `/v1/return/disposition/${vouched.providerReturnId}`,
        { itemDispositions: [itemDisposition(second, 0, 'COUNTERFEIT_ITEM', 'RECYCLED')] },
        { apiKey },
      );
      const cause = `disposition:${vouched.providerReturnId}`;
      expect((await lists.all()).filter((e) => e.cause === cause)).toHaveLength(5);
      await resolveLatest('legitimate', vouched.providerReturnId);
      expect((await lists.all()).filter((e) => e.cause === cause)).toEqual([]);
    } finally {
      await saveWorkflow(api, key, 'return', {
        rules: [
          { name: 'high_abuse_score', decision: 'DECLINE', condition: 'abuseScore >= modelDeclineAt' },
          { name: 'elevated_abuse_score', decision: 'REVIEW', condition: 'abuseScore >= modelReviewAt' },
        ],
        defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
      });
    }
  });
});

describe('people’s entries on decisions', () => {
  it('an allowed customer is not declined by the workflow; a block still wins', async () => {
    const { api, apiKey } = suite;
    const { lists, key } = await setup();
    const email = `${uid('vip')}@example.com`;
    const allowed = await lists.add({
      list: 'allow',
      identity: { kind: 'email', value: email },
      reason: 'VIP since 2019',
    });
    expect(allowed.status).toBe(200);
    await saveWorkflow(api, key, 'order', {
      rules: [{ name: 'decline_all', decision: 'DECLINE', condition: 'abuseScore >= 0' }],
      defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
    });
    try {
      const approved = orderDecision(
        await api.post('/v1/order', orderBody({ email, timestamp: Date.now() }), { apiKey }),
      );
      expect(approved).toMatchObject({ decision: 'APPROVE', subDecision: 'allow_list' });
      expect(approved.decisionReason).toMatch(/^e-mail on the allow list: VIP since 2019; /);
      const stranger = orderDecision(
        await api.post('/v1/order', orderBody({ timestamp: Date.now() }), { apiKey }),
      );
      expect(stranger).toMatchObject({ decision: 'DECLINE', subDecision: 'decline_all' });

      const device = uid('device');
      expect(
        (await lists.add({ list: 'block', identity: { kind: 'device', value: device }, reason: 'bot farm' }))
          .status,
      ).toBe(200);
      const blocked = orderDecision(
        await api.post('/v1/order', orderBody({ email, device, timestamp: Date.now() }), { apiKey }),
      );
      expect(blocked).toMatchObject({ decision: 'DECLINE', subDecision: 'block_list' });
      expect(blocked.decisionReason).toMatch(/^device blocked: bot farm on \d+ \w+ \d{4}; /);
    } finally {
      await saveWorkflow(api, key, 'order', {
        rules: [{ name: 'high_abuse_score', decision: 'DECLINE', condition: 'abuseScore >= modelDeclineAt' }],
        defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
      });
    }
  });

  it('a blocked identity’s return goes to review; the lists are workflow variables', async () => {
    const { api, apiKey } = suite;
    const { lists, key } = await setup();
    const order = await placeOrder(api, apiKey);
    const email = order.customer.contactInformation[0]!.address as string;
    await lists.add({ list: 'block', identity: { kind: 'email', value: email }, reason: 'reseller' });
    const returned = await api.post('/v1/return', returnBody(order, { timestamp: Date.now() }), { apiKey });
    expect(returned.body.returnedLineItems[0]).toMatchObject({
      decision: 'REVIEW',
      subDecision: 'block_list',
    });
    expect(returned.body.returnedLineItems[0].reason).toMatch(/^e-mail blocked: reseller on /);

    const explained = await api.request('GET', `/v1/decisions/order/${order.providerOrderId}`, {
      apiKey: key,
    });
    expect(explained.body.decisions[0].variables).toMatchObject({
      onBlockList: false,
      watchListedIdentities: 0,
    });
  });

  it('entries expire: an event after the expiry is not affected, and the entry shows expired', async () => {
    const { api, apiKey } = suite;
    const { lists } = await setup();
    const device = uid('device');
    const expiresAt = Date.now() + 3_000;
    const added = await lists.add({
      list: 'block',
      identity: { kind: 'device', value: device },
      reason: 'chargeback wave',
      expiresAt: new Date(expiresAt).toISOString(),
    });
    expect(added.body).toMatchObject({ status: 'active', expiresAt: new Date(expiresAt).toISOString() });
    const before = orderBody({ device, timestamp: Date.now() });
    expect(orderDecision(await api.post('/v1/order', before, { apiKey })).subDecision).toBe('block_list');
    // An event's time is never after its receipt: wait for the expiry.
    await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 100));
    const after = orderBody({ device, timestamp: Date.now() });
    expect(orderDecision(await api.post('/v1/order', after, { apiKey })).subDecision).not.toBe('block_list');
    expect((await lists.show(added.body.entryId)).body.status).toBe('expired');
    // A late order from before the expiry still meets the entry.
    const late = orderBody({ device, timestamp: expiresAt - 1_500 });
    expect(orderDecision(await api.post('/v1/order', late, { apiKey })).subDecision).toBe('block_list');
  });
});

describe('list markers', () => {
  it('never push an identity item past 1 KB: beyond the cap entries are displaced (listed, audited, not acting)', async () => {
    const { api, apiKey, merchantId } = suite;
    const { lists } = await setup();
    const device = uid('shared-device');
    const long = 'x'.repeat(1_000);
    for (const list of ['block', 'watch'] as const) {
      const added = await lists.add({
        list,
        identity: { kind: 'device', value: device },
        reason: `${list} ${long}`,
        expiresAt: new Date(Date.now() + 365 * DAY_MS).toISOString(),
        eventTypes: ['order', 'return', 'signup'],
      });
      expect(added.status).toBe(200);
    }
    for (let i = 0; i < 4; i++) await orderWithLostFraudChargeback(api, apiKey, { device });
    const named_ = deviceOf(orderBody({ device }));
    const ref = await storedRef(merchantId, named_);
    const onDevice = (await lists.all()).filter((e) => e.identityDigest === ref.digest.slice(0, 8));
    expect(onDevice).toHaveLength(6);
    const item = await countersOf(merchantId, named_);
    const markers = String(item[MARKERS_ATTRIBUTE]);
    expect(Buffer.byteLength(markers)).toBeLessThanOrEqual(MAX_MARKER_BYTES);
    expect(itemBytes(marshall(item, { removeUndefinedValues: true }))).toBeLessThanOrEqual(1_024);
    const statuses = onDevice.filter((e) => e.status === 'displaced');
    expect(statuses.length).toBeGreaterThan(0);
    // Block over watch: the block acts whatever was added after it.
    expect(
      orderDecision(await api.post('/v1/order', orderBody({ device, timestamp: Date.now() }), { apiKey }))
        .subDecision,
    ).toBe('block_list');
    const displacedAudit = (await lists.audit()).body.items.filter(
      (a: { action: string }) => a.action === 'listEntry.displaced',
    );
    expect(displacedAudit.map((a: { subject: string }) => a.subject)).toEqual(
      expect.arrayContaining(statuses.map((e) => e.entryId)),
    );
  });
});
