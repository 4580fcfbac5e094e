/**
 * A privacy request runs in time-bounded slices that resume where the last stopped (docs/privacy.md):
 * through the local server and the use case against DynamoDB Local, on a table of its own. With a
 * slice too short to search the merchant's event listing at once, GET shows the request pending
 * with its progress growing slice by slice, then done, having erased the subject's events only. The
 * AWS worker's stream handler does the same from the stream records the request's own writes make.
 * A run that keeps failing is tried 3 times, then the request ends failed with its reason.
 */
import { describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `privacy-slices-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});

const { marshall } = await import('@aws-sdk/util-dynamodb');
const { getPrivacyRequest, recordPrivacySlice } = await import('../shared/store/privacy-requests.ts');
const { NEW_SUBJECT_SEARCH } = await import('../shared/store/subject-records.ts');
const { handlePrivacyStream, runPrivacyWorker } = await import('../shared/use-cases/privacy-requests.ts');
const { withOwnTableApi } = await import('./support/api.ts');
const { placeOrder } = await import('./support/commerce.ts');
const { networkMember } = await import('./support/console.ts');
const { uid } = await import('./support/fixtures.ts');
const { allItems } = await import('./support/table-snapshot.ts');

const suite = withOwnTableApi();

const SUBJECT_ORDERS = 3;
const OTHER_ORDERS = 12;

/** A merchant with the subject's orders among others', and an erasure of the subject requested. */
async function merchantWithRequest() {
  const m = await networkMember(suite.api);
  const email = `${uid('jane')}@example.com`;
  for (let i = 0; i < SUBJECT_ORDERS; i++) await placeOrder(suite.api, m.apiKey, { email });
  for (let i = 0; i < OTHER_ORDERS; i++) {
    await placeOrder(suite.api, m.apiKey, { email: `${uid('other')}@example.com` });
  }
  const accepted = await suite.api.request('POST', '/v1/privacy/requests', {
    apiKey: m.console,
    rawBody: JSON.stringify({ type: 'erase', subject: { emails: [email] } }),
  });
  expect(accepted.status, accepted.text).toBe(202);
  const location = accepted.headers.get('location')!;
  const show = async () => {
    const shown = await suite.api.request('GET', location, { apiKey: m.console });
    expect(shown.status, shown.text).toBe(200);
    return shown.body;
  };
  return { m, requestId: accepted.body.requestId as string, show };
}

async function ordersOf(merchantId: string) {
  return (await allItems()).filter(
    (item) => item.entity === 'order' && String(item.PK).startsWith(`M#${merchantId}#`),
  ).length;
}

describe('privacy requests in slices', () => {
  it('shows progress slice by slice, resuming where the last stopped, then done, having erased the subject only', async () => {
    const { m, requestId, show } = await merchantWithRequest();
    expect(await ordersOf(m.merchantId)).toBe(SUBJECT_ORDERS + OTHER_ORDERS);

    // A slice whose time is up at once still reads a page of each listing it holds open; pages of
    // one event leave a listing holding one of them open for the next slice.
    const pass = { sliceMs: 0, pageItems: 1 };
    await runPrivacyWorker(pass);
    const first = await show();
    expect(first.status).toBe('pending');
    expect(first.progress).toMatchObject({ step: 1, slices: 1, updatedAt: expect.any(String) });
    expect(first.progress.listingsRead).toBeGreaterThan(0);
    expect(first.progress.listingsRead).toBeLessThan(first.progress.listings);

    let last = first.progress;
    let shown = first;
    let resumedMidListing = false;
    while (shown.status === 'pending') {
      const cursor = (await getPrivacyRequest(m.merchantId, requestId))?.scan;
      resumedMidListing ||= (cursor?.cursor.open.length ?? 0) > 0;
      await runPrivacyWorker(pass);
      shown = await show();
      expect(shown.progress.slices).toBe(last.slices + 1);
      // Steps in order; within a step, listings read never go back.
      expect(shown.progress.step).toBeGreaterThanOrEqual(last.step);
      if (shown.progress.step === last.step) {
        expect(shown.progress.listingsRead).toBeGreaterThanOrEqual(last.listingsRead);
      }
      expect(shown.progress.eventsFound).toBeGreaterThanOrEqual(last.eventsFound);
      last = shown.progress;
    }
    expect(last.slices).toBeGreaterThan(2);
    expect(resumedMidListing).toBe(true);
    expect(shown).toMatchObject({
      status: 'done',
      counts: { events: SUBJECT_ORDERS },
      progress: { step: 3, listingsRead: last.listings, eventsFound: SUBJECT_ORDERS },
    });
    expect(await ordersOf(m.merchantId)).toBe(OTHER_ORDERS);
  });

  it('runs from the stream records its own writes make; a stale slice records nothing; an ended request is left alone', async () => {
    const { m, requestId, show } = await merchantWithRequest();
    const stored = async () => (await getPrivacyRequest(m.merchantId, requestId))!;
    const streamRecord = (image: object) => ({
      eventName: 'MODIFY' as const,
      dynamodb: { NewImage: marshall(image, { removeUndefinedValues: true }) as never },
    });

    // What an earlier read saw: its slice is not recorded once another has advanced the request.
    const stale = await stored();
    await handlePrivacyStream([streamRecord(stale)]);
    expect((await show()).progress.slices).toBe(1);
    const slice = { search: NEW_SUBJECT_SEARCH, found: {}, listingsRead: 0, listings: 1 };
    expect(await recordPrivacySlice(stale, slice, Date.now())).toBeUndefined();
    expect((await stored()).progress?.slices).toBe(1);

    // Each write to the pending request is a stream record that wakes the worker for the next slice.
    for (let records = 1; (await stored()).status === 'pending'; records++) {
      expect(records).toBeLessThan(1_000);
      await handlePrivacyStream([streamRecord(await stored())]);
    }
    const done = await show();
    expect(done).toMatchObject({ status: 'done', counts: { events: SUBJECT_ORDERS } });

    // A repeated record of the request while it was pending runs nothing now.
    await handlePrivacyStream([streamRecord(stale)]);
    expect(await show()).toEqual(done);
    expect(await ordersOf(m.merchantId)).toBe(OTHER_ORDERS);
  });

  it('retries a failing run, then ends it failed with its reason', async () => {
    // No exports bucket is configured in this file: an export's last step fails every time.
    const m = await networkMember(suite.api);
    const accepted = await suite.api.request('POST', '/v1/privacy/requests', {
      apiKey: m.console,
      rawBody: JSON.stringify({ type: 'export', subject: { emails: [`${uid('jane')}@example.com`] } }),
    });
    expect(accepted.status, accepted.text).toBe(202);
    const show = async () =>
      (await suite.api.request('GET', accepted.headers.get('location')!, { apiKey: m.console })).body;
    for (let attempt = 1; attempt < 3; attempt++) {
      await runPrivacyWorker();
      expect((await show()).status).toBe('pending');
    }
    await runPrivacyWorker();
    const failed = await show();
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(/^gave up after 3 attempts: EXPORTS_BUCKET is not set/);
  });
});
