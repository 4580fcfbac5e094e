/**
 * Free text (docs/privacy.md, "Free text"): a reviewer's note and its copy in the audit log, and a
 * disposition's inspection note and image links, are kept in items of their own that expire after
 * `freeText` (90 days) while their records live on; every reading shows the text while it is kept
 * and nothing, without an error, once it is not.
 */
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { batchGetItems, keyString } from '../shared/store/batch-get.ts';
import { documentClient, tableName } from '../shared/store/client.ts';
import { loadReturnDispositions } from '../shared/store/dispositions.ts';
import { consoleKeys, keyOfItem, keys, type TableKey } from '../shared/store/keys.ts';
import { TTL_ATTRIBUTE } from '../shared/store/table-definition.ts';
import { admin } from './support/admin.ts';
import { withTestApi } from './support/api.ts';
import { itemDisposition } from './support/commerce.ts';
import { consoleKey, orderAndReturn, reviewEveryReturn, saveWorkflow } from './support/console.ts';

const DAY_S = 86_400;
const NOTE = 'empty box, seen twice';

describe('free text kept only as long as its retention', () => {
  const suite = withTestApi();
  const get = (path: string, apiKey: string) => suite.api.request('GET', path, { apiKey });

  async function resolvedWithNote() {
    const key = await consoleKey(suite.merchantId);
    expect((await saveWorkflow(suite.api, key, 'return', reviewEveryReturn)).status).toBe(200);
    const { returnBody } = await orderAndReturn(suite.api, suite.apiKey);
    const queue = await get('/v1/reviews?eventType=return', key);
    const { reviewId } = queue.body.items.find(
      (r: { providerId: string }) => r.providerId === returnBody.providerReturnId,
    );
    const resolved = await suite.api.post(
      `/v1/reviews/${reviewId}/resolve`,
      { outcome: 'abuse', note: NOTE },
      { apiKey: key },
    );
    expect(resolved.status).toBe(200);
    expect(resolved.body.resolution.note).toBe(NOTE);
    return { key, reviewId: reviewId as string };
  }

  /** Every place a person reads the note: the review, the resolved queue, the CLI, the audit log. */
  async function shownNotes(key: string, reviewId: string) {
    const shown = await get(`/v1/reviews/${reviewId}`, key);
    expect(shown.status).toBe(200);
    const queue = await get('/v1/reviews?status=resolved', key);
    expect(queue.status).toBe(200);
    const listed = queue.body.items.find((r: { reviewId: string }) => r.reviewId === reviewId);
    const cli = await admin('reviews', 'list', '--merchant', suite.merchantId, '--status', 'resolved');
    const fromCli = JSON.parse(cli.stdout).reviews.find((r: { reviewId: string }) => r.reviewId === reviewId);
    const audit = await get('/v1/audit', key);
    expect(audit.status).toBe(200);
    const entry = audit.body.items.find(
      (a: { action: string; subject: string }) => a.action === 'review.resolved' && a.subject === reviewId,
    );
    return {
      review: shown.body.review.resolution,
      queue: listed.resolution,
      cli: fromCli.resolution,
      audit: entry.detail as string,
    };
  }

  /** The review's and its audit entry's free-text items, as the table holds them. */
  async function textItems(reviewId: string) {
    const { Items = [] } = await documentClient.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': consoleKeys.auditEntry(suite.merchantId, '', '').PK },
      }),
    );
    const auditEntry = Items.find((i) => i.action === 'review.resolved' && i.subject === reviewId)!;
    const reviewKey = keys.review(suite.merchantId, reviewId);
    const textKeys = [keys.freeText(reviewKey), keys.freeText(keyOfItem(auditEntry))];
    const items = await batchGetItems([reviewKey, ...textKeys]);
    return {
      review: items.get(keyString(reviewKey))!,
      auditEntry,
      reviewText: items.get(keyString(textKeys[0]!)),
      auditText: items.get(keyString(textKeys[1]!)),
      keys: textKeys,
    };
  }

  /** What the clock would see 90 days on: the item past its expiry. */
  async function expire(textKey: TableKey) {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: textKey,
        UpdateExpression: 'SET #ttl = :past',
        ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
  }

  it('shows the note everywhere while kept; its items expire after 90 days, their records later', async () => {
    const { key, reviewId } = await resolvedWithNote();
    expect(await shownNotes(key, reviewId)).toEqual({
      review: expect.objectContaining({ outcome: 'abuse', note: NOTE }),
      queue: expect.objectContaining({ note: NOTE }),
      cli: expect.objectContaining({ note: NOTE }),
      audit: `abuse: ${NOTE}`,
    });

    const stored = await textItems(reviewId);
    const now = Date.now() / 1000;
    // The records keep no note of their own: only the text items hold it.
    expect(JSON.stringify([stored.review, stored.auditEntry])).not.toContain(NOTE);
    for (const text of [stored.reviewText, stored.auditText]) {
      expect(text?.text).toEqual({ note: NOTE });
      expect(Number(text?.[TTL_ATTRIBUTE]) - now).toBeGreaterThan(89 * DAY_S);
      expect(Number(text?.[TTL_ATTRIBUTE]) - now).toBeLessThan(91 * DAY_S);
    }
    expect(Number(stored.review[TTL_ATTRIBUTE]) - now).toBeGreaterThan(399 * DAY_S);
    expect(Number(stored.auditEntry[TTL_ATTRIBUTE]) - now).toBeGreaterThan(729 * DAY_S);
  });

  it('shows the rest without the note once it expired, and once TTL deleted it', async () => {
    const { key, reviewId } = await resolvedWithNote();
    const textKeys = (await textItems(reviewId)).keys;
    const withoutNote = {
      review: expect.not.objectContaining({ note: expect.anything() }),
      queue: expect.not.objectContaining({ note: expect.anything() }),
      cli: expect.not.objectContaining({ note: expect.anything() }),
      audit: 'abuse',
    };

    // Past its expiry but not yet deleted (DynamoDB's TTL deletes within days): already gone.
    for (const textKey of textKeys) await expire(textKey);
    const expired = await shownNotes(key, reviewId);
    expect(expired).toEqual(withoutNote);
    expect(expired.review).toMatchObject({ outcome: 'abuse', resolvedBy: 'ana@acme.example' });

    for (const textKey of textKeys) {
      await documentClient.send(new DeleteCommand({ TableName: tableName, Key: textKey }));
    }
    expect(await shownNotes(key, reviewId)).toEqual(withoutNote);
  });

  it('keeps a disposition’s inspection note and image links apart, for 90 days; its verdict stays', async () => {
    const { order, returnBody } = await orderAndReturn(suite.api, suite.apiKey);
    const returnId = returnBody.providerReturnId;
    const text = { inspectionNote: 'Seal broken, tag cut', images: ['https://cdn.example.com/i/1.jpg'] };
    const disposition = { ...itemDisposition(order, 0, 'EMPTY_BOX', 'REMOVE_SUSPECT_ABUSE'), ...text };
    const dispose = () =>
      suite.api.post(
        `/v1/return/disposition/${returnId}`,
        { itemDispositions: [disposition] },
        {
          apiKey: suite.apiKey,
        },
      );
    expect((await dispose()).status).toBe(200);
    const recordKey = keys.returnDispositions(suite.merchantId, returnId);
    const items = await batchGetItems([recordKey, keys.freeText(recordKey)]);
    const record = items.get(keyString(recordKey))!;
    const textItem = items.get(keyString(keys.freeText(recordKey)))!;
    expect(JSON.stringify(record)).not.toContain('Seal broken');
    expect(JSON.stringify(record)).not.toContain('cdn.example.com');
    const now = Date.now() / 1000;
    expect(Number(textItem[TTL_ATTRIBUTE]) - now).toBeGreaterThan(89 * DAY_S);
    expect(Number(textItem[TTL_ATTRIBUTE]) - now).toBeLessThan(91 * DAY_S);
    expect(Number(record[TTL_ATTRIBUTE]) - now).toBeGreaterThan(399 * DAY_S);

    const kept = await loadReturnDispositions(suite.merchantId, returnId, Date.now());
    expect(kept.texts['0']).toMatchObject(text);
    // The same disposition again, text and all, is a replay: nothing is written.
    expect((await dispose()).status).toBe(200);
    const replayed = await loadReturnDispositions(suite.merchantId, returnId, Date.now());
    expect(replayed.dispositions?.version).toBe(kept.dispositions?.version);

    await expire(keys.freeText(recordKey));
    const expired = await loadReturnDispositions(suite.merchantId, returnId, Date.now());
    expect(expired.texts).toEqual({});
    expect(expired.dispositions?.byLine['0']).toMatchObject({ returnedItemCondition: 'EMPTY_BOX' });
    // Sent again once its text has gone, the text is recorded afresh (the verdict counted once).
    expect((await dispose()).status).toBe(200);
    const again = await loadReturnDispositions(suite.merchantId, returnId, Date.now());
    expect(again.texts['0']).toMatchObject(text);
    expect(again.dispositions?.byLine['0']?.effects).toEqual(kept.dispositions?.byLine['0']?.effects);
  });

  it('keeps a return’s reasons apart, written in the return’s own transaction, for 90 days', async () => {
    const { returnBody } = await orderAndReturn(suite.api, suite.apiKey);
    const recordKey = keys.return(suite.merchantId, returnBody.providerReturnId);
    const items = await batchGetItems([recordKey, keys.freeText(recordKey)]);
    const record = items.get(keyString(recordKey))!;
    const textItem = items.get(keyString(keys.freeText(recordKey)))!;
    expect(record).not.toHaveProperty('reason');
    expect((record.items as Record<string, unknown>[])[0]).not.toHaveProperty('reason');
    expect(textItem.text).toEqual({
      reason: returnBody.reason,
      lines: returnBody.returnedLineItems.map((item: { reason: string }) => item.reason),
    });
    const now = Date.now() / 1000;
    expect(Number(textItem[TTL_ATTRIBUTE]) - now).toBeGreaterThan(89 * DAY_S);
    expect(Number(textItem[TTL_ATTRIBUTE]) - now).toBeLessThan(91 * DAY_S);
    expect(Number(record[TTL_ATTRIBUTE]) - now).toBeGreaterThan(399 * DAY_S);
  });
});
