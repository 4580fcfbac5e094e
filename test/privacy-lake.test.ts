/**
 * An erasure reaches the lake (docs/privacy.md), through the local server, DynamoDB Local's stream
 * and the local lake as `npm start` runs them: merchants A and B share a customer's e-mail and card;
 * after the erasure at A no lake file holds the customer's digests or ids at A, A's other customers
 * and B's files are as they were, a late delivery of an erased row is taken out by the second pass,
 * and a second erasure changes no file.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `privacy-lake-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});

const { DuckDBInstance } = await import('@duckdb/node-api');
const { caughtUpLakeConnection, caughtUpLakeEraser } = await import('../local/lake-runner.ts');
const { getPrivacyRequest } = await import('../shared/store/privacy-requests.ts');
const { runPrivacyWorker } = await import('../shared/use-cases/privacy-requests.ts');
const { withOwnTableApi } = await import('./support/api.ts');
const { cardOf, emailOf, placeOrder, storedRef } = await import('./support/commerce.ts');
const { networkMember } = await import('./support/console.ts');
const { uid } = await import('./support/fixtures.ts');
const { customerAt, requestPrivacy } = await import('./support/privacy.ts');

const suite = withOwnTableApi(undefined, { stream: true });
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'privacy-lake-'));
});

const DAY = 86_400_000;

/** Every Parquet file of the lake, by path relative to it. */
function lakeFiles(under = dir): string[] {
  return readdirSync(under, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.parquet'))
    .map((name) => relative(dir, join(under, name)));
}

/** The files of one merchant's partitions, each with a hash of its bytes. */
const merchantFiles = (merchantId: string) =>
  Object.fromEntries(
    lakeFiles()
      .filter((file) => file.includes(`/merchant_id=${merchantId}/`))
      .map((file) => [
        file,
        createHash('sha256')
          .update(readFileSync(join(dir, file)))
          .digest('hex'),
      ]),
  );

/** Each row of every file under a merchant's partitions, as JSON text. */
async function rowTexts(merchantId: string): Promise<{ file: string; text: string }[]> {
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  const rows: { file: string; text: string }[] = [];
  for (const file of Object.keys(merchantFiles(merchantId))) {
    const read = await connection.runAndReadAll(
      `SELECT to_json(t)::VARCHAR AS text FROM read_parquet('${join(dir, file)}') t`,
    );
    for (const { text } of read.getRowObjectsJson()) rows.push({ file, text: String(text) });
  }
  connection.closeSync();
  return rows;
}

const naming = async (merchantId: string, words: readonly string[]) =>
  (await rowTexts(merchantId)).flatMap(({ file, text }) =>
    words.filter((word) => text.includes(word)).map((word) => `${file} names ${word}`),
  );

/** One pass of the local privacy worker, as `npm start`'s poller runs it; the second lake pass not delayed. */
const workerPass = () => runPrivacyWorker({ lake: caughtUpLakeEraser(dir), lakeRecheckMs: 0 });

describe('erasure in the lake', () => {
  it('takes the customer out of every lake file at A, keeps the rest, outlasts a late delivery; a second run changes nothing', async () => {
    const [a, b] = [await networkMember(suite.api), await networkMember(suite.api)];
    const email = `${uid('lake')}@example.com`;
    const card = { BIN: '466666', last4: String(1000 + Math.floor(Math.random() * 8999)), expiry: '06/30' };
    const atA = await customerAt(suite.api, a, email, card);
    await customerAt(suite.api, b, email, card);
    // Another customer of A's, in the same day's partition as the erased order.
    const neighbour = await placeOrder(suite.api, a.apiKey, { timestamp: Date.now() - 10 * DAY });
    (await caughtUpLakeConnection(dir)).closeSync();

    const words = [
      (await storedRef(a.merchantId, emailOf(atA.order))).digest,
      (await storedRef(a.merchantId, cardOf(atA.order))).digest,
      atA.order.providerOrderId,
      atA.returnId,
      atA.dispute.disputeId,
      atA.reviewId,
    ];
    const before = await naming(a.merchantId, words);
    // Every kind of row the customer has: its order and return, the dispute, the review, list entries.
    for (const table of ['decided_events/kind=order', 'decided_events/kind=return', 'feedback/kind=dispute'])
      expect(
        before.some((line) => line.startsWith(table)),
        table,
      ).toBe(true);
    for (const table of ['feedback/kind=review', 'list_changes/kind=list_entry'])
      expect(
        before.some((line) => line.startsWith(table)),
        table,
      ).toBe(true);
    const orderFile = before.find((line) => line.startsWith('decided_events/kind=order'))!.split(' ')[0]!;
    const late = join(mkdtempSync(join(tmpdir(), 'late-')), 'late.parquet');
    copyFileSync(join(dir, orderFile), late);
    const bFiles = merchantFiles(b.merchantId);
    expect(Object.keys(bFiles).length).toBeGreaterThan(0);

    const location = await requestPrivacy(suite.api, a, {
      type: 'erase',
      subject: { emails: [email], cards: [card] },
    });
    const requestId = location.split('/').at(-1)!;
    await workerPass(); // the table's records
    const erased = await getPrivacyRequest(a.merchantId, requestId);
    expect(erased?.status).toBe('done');
    expect(erased?.lakeErasure?.passes).toBe(0);
    expect(await naming(a.merchantId, words)).not.toEqual([]);

    await workerPass(); // the lake's first pass
    expect(await naming(a.merchantId, words)).toEqual([]);
    const afterFirst = await suite.api.request('GET', location, { apiKey: a.console });
    // At least a row of each kind the customer had: order, return, dispute, review, list entry.
    expect(afterFirst.body.counts.lakeRows).toBeGreaterThanOrEqual(5);
    const neighbours = (await rowTexts(a.merchantId)).filter(({ text }) =>
      text.includes(neighbour.providerOrderId),
    );
    expect(neighbours.map(({ file }) => file.split('/day=')[0])).toEqual([orderFile.split('/day=')[0]]);
    expect(merchantFiles(b.merchantId)).toEqual(bFiles);

    // Firehose delivers a buffer it held since before the erasure: the order's row lands again.
    copyFileSync(late, join(dir, orderFile.replace(/[^/]+$/, 'late-delivery.parquet')));
    expect(await naming(a.merchantId, words)).not.toEqual([]);
    await workerPass(); // the second pass
    expect(await naming(a.merchantId, words)).toEqual([]);
    const done = await getPrivacyRequest(a.merchantId, requestId);
    expect(done?.lakeErasure).toBeUndefined();
    expect(done?.counts?.lakeRows).toBeGreaterThan(afterFirst.body.counts.lakeRows);
    expect(JSON.stringify(done)).not.toContain(atA.order.providerOrderId);
    expect(merchantFiles(b.merchantId)).toEqual(bFiles);

    // A second erasure: its passes find nothing, and no file changes.
    const files = { ...merchantFiles(a.merchantId), ...merchantFiles(b.merchantId) };
    const again = await requestPrivacy(suite.api, a, {
      type: 'erase',
      subject: { emails: [email], cards: [card] },
    });
    for (let pass = 0; pass < 3; pass++) await workerPass();
    const second = await suite.api.request('GET', again, { apiKey: a.console });
    expect(second.body.status).toBe('done');
    expect(second.body.counts.lakeRows).toBe(0);
    expect({ ...merchantFiles(a.merchantId), ...merchantFiles(b.merchantId) }).toEqual(files);
  });
});
