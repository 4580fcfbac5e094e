import { beforeAll, describe, expect, it, vi } from 'vitest';
import { admin } from './support/admin.ts';
import { type ApiResponse, withTestApi } from './support/api.ts';
import { disputeEntry, placeOrder, returnBody } from './support/commerce.ts';
import { consoleKey } from './support/console.ts';
import { orderBody, uid } from './support/fixtures.ts';
import { createOwnTable } from './support/table-snapshot.ts';

// A table of its own: the nightly job first catches its lake up with the table's whole stream, which
// then holds this suite's writes alone.
vi.hoisted(() => {
  process.env.TABLE_NAME = `economics-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});
beforeAll(() => createOwnTable({ stream: true }));

const { mkdtempSync } = await import('node:fs');
const { tmpdir } = await import('node:os');
const { join } = await import('node:path');
const { caughtUpLake } = await import('../local/lake-runner.ts');
const { runLearningLocally } = await import('./support/learning-state-machine.ts');
const { keys, reviewCounterKey } = await import('../shared/store/keys.ts');
const { utcDay } = await import('../shared/store/decision-settings.ts');
const { getModelVersion } = await import('../shared/store/model-versions.ts');

/**
 * Decisions that follow the merchant's economics, through the local server: the good-customer
 * guard measured on labeled orders (by the nightly job and the trade-off report), the trade-off
 * report's figures, thresholds and reasons that move with the margin, and REVIEW that stops once
 * the day's review capacity is used.
 */
const DAY = 86_400_000;
const VALUE = 49.99;
const FEE = 15;
/** Good orders: the fewest that can show 0.5 % with the guard's 90 % confidence (none of them above). */
const GOOD = 460;

const decisionOf = (response: ApiResponse) => response.body.cartLevelDecisions[0].decisions[0];

/** An order whose CVV check failed (and its address check too, when `avs`). */
function cvvFailed(options: Parameters<typeof orderBody>[0] = {}, avs = false) {
  const body = orderBody(options);
  const payment = { ...body.paymentInfo[0]!, cvv_result_code: 'N', ...(avs ? { avs_result_code: 'N' } : {}) };
  return { ...body, paymentInfo: [payment] };
}

describe('decisions from the merchant economics', () => {
  const suite = withTestApi();
  let key: string;
  /** The version the nightly job trained (not promoted: the merchant has auto-promotion off). */
  let trained: string | undefined;
  /** The scores answered to the labeled orders: good ones, and a ring's that were charged back. */
  const scores = { good: [] as number[], ring: [] as number[] };
  const order = async (body: object) => {
    const response = await suite.api.post('/v1/order', body, { apiKey: suite.apiKey });
    expect(response.status).toBe(200);
    return response;
  };
  const management = (method: string, path: string, body?: unknown) =>
    suite.api.request(method, path, { apiKey: key, ...(body ? { rawBody: JSON.stringify(body) } : {}) });

  beforeAll(async () => {
    key = await consoleKey(suite.merchantId, 'risk@acme.example');
    // 61-89 days old: the orders' 60-day label window has closed, so each is labeled, and all are
    // within the report's 90 days. 460 good ones, enough to measure 0.5 % of them; one in 20 had
    // its CVV check fail, so good customers do not all score alike.
    const start = Date.now() - 89 * DAY;
    const at = (i: number, of: number) => start + Math.floor((i * 27 * DAY) / of);
    for (let batch = 0; batch < GOOD; batch += 20) {
      const answered = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          order(
            i === 0
              ? cvvFailed({ timestamp: at(batch, GOOD) })
              : orderBody({ timestamp: at(batch + i, GOOD) }),
          ),
        ),
      );
      scores.good.push(...answered.map((r) => decisionOf(r).abuseScore));
    }
    // A ring of new e-mails on one card, every order charged back as fraud.
    const card = { BIN: '411111', last4: '0042', expiry: '01/30' };
    for (let i = 0; i < 20; i++) {
      const body = orderBody({ timestamp: at(i, 20) + 3_600_000, card });
      scores.ring.push(decisionOf(await order(body)).abuseScore);
      const dispute = {
        dispute: [disputeEntry({ disputeStatus: 'LOST', timestamp: Number(body.timestamp) + 5 * DAY })],
      };
      const answer = await suite.api.post(`/v1/order/dispute/${body.providerOrderId}`, dispute, {
        apiKey: suite.apiKey,
      });
      expect(answer.status).toBe(200);
    }
    // Today's order: labels are read as of the merchant's latest event (it stays unlabeled itself).
    await order(orderBody());
  });

  /** The lowest threshold above every good order: 0.5 % of 460, held with 90 % confidence. */
  const measuredDeclineFloor = () => {
    let threshold = 101;
    while (threshold > 0 && scores.good.filter((s) => s >= threshold - 1).length === 0) threshold--;
    return threshold;
  };

  it('the nightly job measures the guard on the labeled orders; the merchant sees where it came from', async () => {
    const lake = await caughtUpLake(mkdtempSync(join(tmpdir(), 'economics-lake-')));
    const run = await runLearningLocally({ merchantId: suite.merchantId, eventType: 'order' }, { lake });
    const [result] = run.results;
    trained = result && 'version' in result ? result.version : undefined;
    expect(result && 'guard' in result ? result.guard : undefined).toEqual({
      declineAt: measuredDeclineFloor(),
      reviewAt: expect.any(Number),
      source: { declineAt: 'measured', reviewAt: 'measured' },
    });
    const settings = (await management('GET', '/v1/settings/order')).body;
    expect(settings.guard).toMatchObject({
      declineAt: measuredDeclineFloor(),
      source: { declineAt: 'measured' },
      events: GOOD + 20,
      goodEvents: GOOD,
    });
    expect(settings.guard.explanation).toContain(`measured on ${GOOD} good of ${GOOD + 20} labeled events`);
    // Good orders score far below 50: the budget, not the default floor, guards this merchant.
    expect(settings.guard.declineAt).toBeLessThan(50);
  });

  it('reports every threshold’s figures on the labeled orders, the live thresholds and the guard', async () => {
    const response = await management('GET', '/v1/tradeoffs/order');
    expect(response.status).toBe(200);
    const report = response.body;
    expect(report).toMatchObject({
      eventType: 'order',
      canReview: false,
      guard: { declineAt: measuredDeclineFloor(), source: { declineAt: 'measured' } },
      labeled: {
        events: GOOD + 20,
        abusive: 20,
        good: GOOD,
        excluded: { unlabeled: 1, censored: 0 },
        from: new Date(Date.now() - 90 * DAY).toISOString().slice(0, 10),
      },
    });
    // Counted by the nightly item from the lake, not in this request.
    expect(Date.now() - Date.parse(report.labeled.computedAt)).toBeLessThan(10 * 60_000);
    expect(report.labeled.review).toBeUndefined();
    // The default model is live: there is no holdout.
    expect(report.holdout).toBeUndefined();
    // Each point, recomputed from the scores the orders were answered with.
    const margin = VALUE * 0.3;
    for (const t of [0, 10, 20, 35, 50, 75, 100]) {
      const ringBelow = scores.ring.filter((s) => s < t).length;
      const goodAtOrAbove = scores.good.filter((s) => s >= t).length;
      const point = report.labeled.decline[t];
      expect(point.threshold).toBe(t);
      expect(point.caught).toBeCloseTo(1 - ringBelow / 20, 4);
      expect(point.goodDeclined).toBeCloseTo(goodAtOrAbove / GOOD, 4);
      expect(point.goodReviewed).toBe(0);
      expect(point.cost).toBeCloseTo(ringBelow * (VALUE + FEE) + goodAtOrAbove * margin, 1);
    }
    // Every order has the same value: one live threshold, the economics' 19 over the guard.
    const liveAt = Math.max(19, measuredDeclineFloor());
    expect(report.labeled.live.declineAt).toEqual({ min: liveAt, median: liveAt, max: liveAt });
    expect(report.labeled.live.cost).toBe(report.labeled.decline[liveAt].cost);
  });

  it('a changed margin moves the next order’s thresholds and decision; the reason says why', async () => {
    // CVV and AVS failed on a new customer's order: about 23 % likely abusive.
    const risky = () => cvvFailed({}, true);
    const thresholdsOf = async (providerOrderId: string) =>
      (await management('GET', `/v1/decisions/order/${providerOrderId}`)).body.decisions[0].variables;

    expect((await management('PUT', '/v1/settings/order', { grossMargin: 0.3 })).status).toBe(200);
    const thin = risky();
    const declined = decisionOf(await order(thin));
    expect(declined.abuseScore).toBeGreaterThanOrEqual(19);
    expect(declined.abuseScore).toBeLessThan(32);
    // 0.3 x 49.99 = 15.00 lost by declining a good order, 49.99 + 15 by approving fraud: 18.75 %.
    expect(declined).toMatchObject({ decision: 'DECLINE', subDecision: 'high_abuse_score' });
    expect(declined.decisionReason).toMatch(
      new RegExp(
        `^${declined.abuseScore} % likely abusive; at a 30 % margin, approving costs more than declining above 19 %; `,
      ),
    );
    expect(await thresholdsOf(thin.providerOrderId)).toMatchObject({ modelDeclineAt: 19, modelReviewAt: 19 });
    // The report prices the kept histogram at the settings in force: declining every good order now
    // loses 30 % of each.
    const repriced = (await management('GET', '/v1/tradeoffs/order')).body.labeled;
    expect(repriced.decline[0].cost).toBeCloseTo(GOOD * 0.3 * VALUE, 0);

    // At a 60 % margin declining a good order loses 29.99: declining pays only above 31.6 %.
    expect((await management('PUT', '/v1/settings/order', { grossMargin: 0.6 })).status).toBe(200);
    const fat = risky();
    const approved = decisionOf(await order(fat));
    expect(approved.abuseScore).toBe(declined.abuseScore);
    expect(approved).toMatchObject({ decision: 'APPROVE', subDecision: 'default_approve' });
    expect(await thresholdsOf(fat.providerOrderId)).toMatchObject({ modelDeclineAt: 32, modelReviewAt: 32 });
  });

  it('a promoted version: its holdout in the report, its own thresholds as the floors, again under a new budget', async () => {
    const version = await getModelVersion(suite.merchantId, 'order', trained!);
    const promoted = await admin(
      'models',
      'promote',
      '--merchant',
      suite.merchantId,
      '--type',
      'order',
      '--version',
      trained!,
    );
    expect(promoted.code, promoted.stderr).toBe(0);
    const { holdout } = version!.evaluation;
    const report = (await management('GET', '/v1/tradeoffs/order')).body;
    expect(report).toMatchObject({
      modelVersion: trained,
      guard: { ...version!.thresholds, source: { declineAt: 'holdout', reviewAt: 'holdout' } },
      holdout: { events: holdout.events, abusive: holdout.positives, from: holdout.from },
    });
    expect(report.holdout.decline).toHaveLength(101);
    expect(report.guard.explanation).toContain(`chosen on the holdout of ${trained}`);

    // A budget of 5 % declined: the version's holdout is read again for it.
    const wider = await management('PUT', '/v1/settings/order', { maxGoodDeclinedShare: 0.05 });
    expect(wider.body.guard).toMatchObject({
      modelVersion: trained,
      budget: { maxGoodDeclinedShare: 0.05 },
      source: { declineAt: 'holdout' },
    });
    expect(wider.body.guard.declineAt).toBeLessThanOrEqual(version!.thresholds.declineAt);
    // Back to the default budget and margin: the version's own threshold over the economics' 19.
    await management('PUT', '/v1/settings/order', {});
    const order = orderBody();
    expect((await suite.api.post('/v1/order', order, { apiKey: suite.apiKey })).status).toBe(200);
    const seen = (await management('GET', `/v1/decisions/order/${order.providerOrderId}`)).body.decisions[0];
    expect(seen.modelVersion).toBe(trained);
    expect(seen.variables.modelDeclineAt).toBe(Math.max(19, version!.thresholds.declineAt));
  });
});

describe('review capacity', () => {
  const suite = withTestApi();

  /** A return of 2 units of a 1-unit order ("more units returned than bought"), by id. */
  async function returnTwice(providerReturnId: string) {
    const bought = await placeOrder(suite.api, suite.apiKey);
    const body = returnBody(bought, { providerReturnId, lines: [{ line: 0, quantity: 2 }] });
    const response = await suite.api.post('/v1/return', body, { apiKey: suite.apiKey });
    expect(response.status).toBe(200);
    return response.body.returnedLineItems[0];
  }
  /** Return ids whose review-counter shard today is the first one's. */
  function idsOnOneShard(count: number): string[] {
    const shardOf = (id: string) =>
      reviewCounterKey(suite.merchantId, 'return', utcDay(Date.now()), keys.return(suite.merchantId, id).PK)
        .PK;
    const first = uid('return');
    const ids = [first];
    while (ids.length < count) {
      const id = uid('return');
      if (shardOf(id) === shardOf(first)) ids.push(id);
    }
    return ids;
  }

  it('REVIEW stops once the day’s capacity is used: one shard read, scaled by the shard count (8)', async () => {
    const key = await consoleKey(suite.merchantId);
    const saved = await suite.api.request('PUT', '/v1/settings/return', {
      apiKey: key,
      rawBody: JSON.stringify({ reviewCapacityPerDay: 9 }),
    });
    expect(saved.status).toBe(200);
    const [first, second, third] = idsOnOneShard(3) as [string, string, string];

    // Each review counts 8 on its shard: 0 and 8 are under 9, 16 is not.
    const reviewed = [await returnTwice(first), await returnTwice(second)];
    for (const line of reviewed) {
      expect(line).toMatchObject({ decision: 'REVIEW', subDecision: 'elevated_abuse_score' });
      expect(line.reason).toMatch(
        /^\d+ % likely abusive; a review \(5\) costs less than approving or declining between 8 % and 88 % \(good-customer guard: 30 %\); /,
      );
    }
    // No review left: a line's 99.98 is worth declining above 40 %, and the default guard says 50.
    const after = await returnTwice(third);
    expect(after.abuseScore).toBeGreaterThanOrEqual(50);
    expect(after).toMatchObject({ decision: 'DECLINE', subDecision: 'high_abuse_score' });
    expect(after.reason).toContain(
      'losing 60 % of 99.98 to abuse, approving costs more than declining above 40 % (good-customer guard: 50 %)',
    );
    const explained = await suite.api.request('GET', `/v1/decisions/return/${third}`, { apiKey: key });
    expect(explained.body.decisions[0].variables).toMatchObject({ modelDeclineAt: 50, modelReviewAt: 50 });

    const shown = await suite.api.request('GET', '/v1/settings/return', { apiKey: key });
    expect(shown.body.reviews).toEqual({ today: 2, capacityPerDay: 9, capacityLeft: true });
    const queue = await suite.api.request('GET', '/v1/reviews?eventType=return', { apiKey: key });
    expect(queue.body.items).toHaveLength(2);
  });
});
