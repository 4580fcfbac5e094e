import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityDigests } from '../shared/digests/identity-digests.ts';
import { type IdentityRef, normalizeEmail } from '../shared/identity/identities.ts';
import type { DecisionOutcome } from '../shared/schemas/decision.ts';
import type { Decision } from '../shared/scoring/decide.ts';
import { batchGetItems } from '../shared/store/batch-get.ts';
import { identityKey } from '../shared/store/identity-history.ts';
import { keys } from '../shared/store/keys.ts';
import { reviewIdFor, reviewItemsFor } from '../shared/store/reviews.ts';
import { transactWrite } from '../shared/store/transact.ts';
import { resolveReview } from '../shared/use-cases/resolve-review.ts';
import { admin } from './support/admin.ts';
import { type ApiResponse, newMerchant, startTestApi, type TestApi } from './support/api.ts';
import { orderBody, uid } from './support/fixtures.ts';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const decision = (outcome: DecisionOutcome, subDecision = 'elevated_abuse_score'): Decision => ({
  decision: outcome,
  subDecision,
  decisionType: 'APPROVE/DECLINE/REVIEW',
  reason: '2 abusive returns on this e-mail in 365 days',
  abuseScore: 61,
  modelVersion: 'return-test',
  workflowVersion: 'default-return-1',
  signals: { abusiveReturnsOnIdentities: 1.58 },
  fields: { refundMode: 'STORE_CREDIT' },
});

/** A REVIEW decision's review item, written the way a use case writes it: inside a transaction. */
async function reviewedReturn(merchantId: string, email: string) {
  const eventKey = keys.return(merchantId, uid('return'));
  const identity = await identityDigests(merchantId);
  const identities = [identity('email', normalizeEmail(email)), identity('device', uid('device'))];
  const items = reviewItemsFor(merchantId, 'return', eventKey, decision('REVIEW'), identities, Date.now());
  await transactWrite(items);
  return { reviewId: reviewIdFor('return', eventKey), eventKey, identities };
}

async function counter(merchantId: string, ref: IdentityRef, attribute: string) {
  const items = await batchGetItems([identityKey(merchantId, ref)]);
  return [...items.values()][0]?.[attribute];
}

describe('reviewItemsFor (the builder a use case appends to its transaction)', () => {
  it('adds nothing unless a decision is REVIEW', () => {
    const key = keys.return('mer_x', 'r1');
    expect(reviewItemsFor('mer_x', 'return', key, decision('APPROVE', 'default_approve'), [], 0)).toEqual([]);
    expect(
      reviewItemsFor('mer_x', 'return', key, [{ itemRef: 'SKU:a', decision: decision('DECLINE') }], [], 0),
    ).toEqual([]);
  });

  it('puts one review per event, only if absent, listing the line items under review', () => {
    const key = keys.return('mer_x', 'r1');
    const items = reviewItemsFor(
      'mer_x',
      'return',
      key,
      [
        { itemRef: 'SKU:a', decision: decision('REVIEW') },
        { itemRef: 'SKU:b', decision: decision('APPROVE', 'default_approve') },
        { itemRef: 'SKU:c', decision: decision('REVIEW') },
      ],
      ['email#abc', 'email#abc', 'device#def'],
      Date.UTC(2026, 0, 2),
    );
    expect(items).toHaveLength(1);
    const put = items[0]!.Put!;
    expect(put.ConditionExpression).toBe('attribute_not_exists(PK)');
    expect(put.Item).toMatchObject({
      ...keys.review('mer_x', reviewIdFor('return', key)),
      GSI1PK: expect.stringMatching(/^M#mer_x#REVIEWS#open#\d+$/),
      GSI1SK: `2026-01-02T00:00:00.000Z#${reviewIdFor('return', key)}`,
      entity: 'review',
      eventType: 'return',
      eventKey: key,
      identities: ['email#abc', 'device#def'],
      status: 'open',
    });
    expect(put.Item?.decisions.map((d: { itemRef: string }) => d.itemRef)).toEqual(['SKU:a', 'SKU:c']);
    expect(put.Item?.decisions[0]).toEqual({
      itemRef: 'SKU:a',
      decision: 'REVIEW',
      subDecision: 'elevated_abuse_score',
      reason: '2 abusive returns on this e-mail in 365 days',
      abuseScore: 61,
      modelVersion: 'return-test',
      workflowVersion: 'default-return-1',
    });
  });
});

describe('admin reviews list/resolve against DynamoDB Local', () => {
  it('lists an open review, resolves it as abuse (the identities count one more abusive return), refuses a second resolution', async () => {
    const merchant = await newMerchant();
    const { reviewId, eventKey, identities } = await reviewedReturn(
      merchant.merchantId,
      `${uid('r')}@example.com`,
    );

    const listed = await admin('reviews', 'list', '--merchant', merchant.merchantId);
    expect(listed.code, listed.stderr).toBe(0);
    const open = JSON.parse(listed.stdout);
    expect(open).toMatchObject({ status: 'open', count: 1, more: false });
    expect(open.reviews[0]).toMatchObject({
      reviewId,
      eventType: 'return',
      eventKey,
      status: 'open',
      identities: identities.map((r) => `${r.kind}#${r.digest}`),
      decisions: [{ decision: 'REVIEW', subDecision: 'elevated_abuse_score', abuseScore: 61 }],
    });

    const resolved = await admin(
      'reviews',
      'resolve',
      '--merchant',
      merchant.merchantId,
      '--review',
      reviewId,
      '--outcome',
      'abuse',
      '--note',
      'empty box',
    );
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(JSON.parse(resolved.stdout)).toMatchObject({
      reviewId,
      status: 'resolved',
      outcome: 'abuse',
      identitiesLabelled: 2,
      resolution: { outcome: 'abuse', note: 'empty box' },
    });
    for (const ref of identities) expect(await counter(merchant.merchantId, ref, 'c_abr')).toBe(1);

    const again = await admin(
      'reviews',
      'resolve',
      '--merchant',
      merchant.merchantId,
      '--review',
      reviewId,
      '--outcome',
      'legitimate',
    );
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stderr).error).toMatch(
      new RegExp(`^review ${reviewId} is already resolved \\(abuse at `),
    );
    for (const ref of identities) {
      expect(await counter(merchant.merchantId, ref, 'c_abr')).toBe(1);
      expect(await counter(merchant.merchantId, ref, 'c_lgR')).toBeUndefined();
    }

    expect(JSON.parse((await admin('reviews', 'list', '--merchant', merchant.merchantId)).stdout).count).toBe(
      0,
    );
    const done = JSON.parse(
      (await admin('reviews', 'list', '--merchant', merchant.merchantId, '--status', 'resolved')).stdout,
    );
    expect(done.reviews.map((r: { reviewId: string }) => r.reviewId)).toEqual([reviewId]);
    expect(done.reviews[0].resolution).toMatchObject({ outcome: 'abuse', note: 'empty box' });
  });

  it('an unknown review exits 1; a bad outcome is a usage error', async () => {
    const merchant = await newMerchant();
    const missing = await admin(
      'reviews',
      'resolve',
      '--merchant',
      merchant.merchantId,
      '--review',
      'rev_nope',
      '--outcome',
      'abuse',
    );
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toEqual({
      error: `no review rev_nope for merchant ${merchant.merchantId}`,
    });
    const bad = await admin(
      'reviews',
      'resolve',
      '--merchant',
      merchant.merchantId,
      '--review',
      'rev_nope',
      '--outcome',
      'maybe',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--outcome must be one of abuse, legitimate');
  });

  it('two concurrent resolutions: exactly one wins and the label counts once', async () => {
    const merchant = await newMerchant();
    const { reviewId, identities } = await reviewedReturn(merchant.merchantId, `${uid('r')}@example.com`);
    const results = await Promise.all(
      (['abuse', 'abuse', 'legitimate'] as const).map((outcome) =>
        resolveReview({ merchantId: merchant.merchantId, reviewId, outcome, now: Date.now() }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual(['already_resolved', 'already_resolved', 'resolved']);
    const winner = results.find((r) => r.status === 'resolved');
    const metric =
      winner?.status === 'resolved' && winner.review.resolution?.outcome === 'abuse' ? 'c_abr' : 'c_lgR';
    for (const ref of identities) expect(await counter(merchant.merchantId, ref, metric)).toBe(1);
  });

  it('a "legitimate" label lowers the next order score of that customer (a mitigating order signal)', async () => {
    const merchant = await newMerchant();
    const vouched = `${uid('vouched')}@example.com`;
    const { reviewId } = await reviewedReturn(merchant.merchantId, vouched);
    const resolved = await admin(
      'reviews',
      'resolve',
      '--merchant',
      merchant.merchantId,
      '--review',
      reviewId,
      '--outcome',
      'legitimate',
    );
    expect(resolved.code, resolved.stderr).toBe(0);

    const score = (r: ApiResponse) => r.body.cartLevelDecisions[0].decisions[0].abuseScore as number;
    const stranger = await api.post('/v1/order', orderBody(), { apiKey: merchant.apiKey });
    const known = await api.post('/v1/order', orderBody({ email: vouched }), { apiKey: merchant.apiKey });
    expect(score(known)).toBeLessThan(score(stranger));
    const { getOrder } = await import('../shared/store/orders.ts');
    const stored = await getOrder(merchant.merchantId, known.body.providerOrderID);
    expect(stored?.decision.signals.legitimateReviewsOnIdentities).toBe(1);
  });
});
