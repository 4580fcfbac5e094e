import { describe, expect, it } from 'vitest';
import { expectError, newMerchant, withTestApi } from '../support/api.ts';
import { countersOf, emailOf } from '../support/commerce.ts';
import { consoleKey, orderAndReturn } from '../support/console.ts';

const { CSV_COLUMNS } = await import('../../shared/console/dispositions-upload.ts');
const { getRecord } = await import('../../shared/store/record-once.ts');
const { loadReturnDispositions } = await import('../../shared/store/dispositions.ts');
const { keys, uploadKeys } = await import('../../shared/store/keys.ts');
const { BadUploadEventError, handler } = await import('../../functions/dispositions-upload-worker.ts');
const { recordingUploads, startAttempt } = await import('../../shared/store/disposition-uploads.ts');
const { recordUpload, runUploadWorker, MAX_UPLOAD_ATTEMPTS } = await import(
  '../../shared/use-cases/record-upload.ts'
);
const { recordDispositions } = await import('../../shared/use-cases/record-dispositions.ts');

const HEADER = CSV_COLUMNS.join(',');

/**
 * POST /v1/return/dispositions/upload: all-or-nothing validation, then a job (202) that the upload
 * worker records idempotently; GET /v1/return/dispositions/uploads/{upload-id} shows its progress.
 * The worker runs here as `npm start`'s poller and the AWS worker Lambda run it.
 */
describe('dispositions CSV upload', () => {
  const suite = withTestApi();
  const upload = (key: string, csv: string, contentType = 'text/csv') =>
    suite.api.request('POST', '/v1/return/dispositions/upload', {
      apiKey: key,
      headers: { 'Content-Type': contentType },
      rawBody: csv,
    });
  const status = (key: string, uploadId: string) =>
    suite.api.request('GET', `/v1/return/dispositions/uploads/${uploadId}`, { apiKey: key });

  async function returnWithItem() {
    const { order, returnBody } = await orderAndReturn(suite.api, suite.apiKey);
    const sku = order.lineItems[0]!.identifiers[0]!.identifier;
    return { order, returnId: returnBody.providerReturnId, sku };
  }

  it('records nothing and starts no job when any row fails, and lists every failing cell with line, column and code', async () => {
    const key = await consoleKey(suite.merchantId);
    const good = await returnWithItem();
    const csv = [
      HEADER,
      `${good.returnId},SKU,${good.sku},EMPTY_BOX,REMOVE_SUSPECT_ABUSE,DROPOFF,CASH,WH-1,,https://img.example/a.jpg|https://img.example/b.jpg,"box, empty"`,
      `${good.returnId},SKU,not-on-return,NEW,RESTOCK,,,,,,`,
      'no-such-return,SKU,x,NEW,RESTOCK,,,,,,',
      `${good.returnId},SKU,${good.sku},BROKEN,RESTOCK,BY_PIGEON,,,,not-a-url,`,
    ].join('\n');
    const refused = await upload(key, csv);
    expectError(refused, 422, 'invalid_csv_rows');
    expect(refused.body.error.details).toEqual([
      { line: 3, column: 'identifier', code: 'item_not_on_return', message: expect.any(String) },
      { line: 4, column: 'returnId', code: 'return_not_found', message: expect.any(String) },
      { line: 5, column: 'returnedItemCondition', code: 'unknown_enum_value', message: expect.any(String) },
      { line: 5, column: 'returnMethod', code: 'unknown_enum_value', message: expect.any(String) },
      { line: 5, column: 'images', code: 'unprocessable_entity', message: expect.any(String) },
    ]);
    expect(await recordingUploads(10, suite.merchantId)).toEqual([]);
    expect(await runUploadWorker({ merchantId: suite.merchantId })).toEqual([]);
    expect(await getRecord(keys.returnDispositions(suite.merchantId, good.returnId))).toBeUndefined();
    expect((await countersOf(suite.merchantId, emailOf(good.order))).c_abr).toBeUndefined();
    const audit = (await suite.api.request('GET', '/v1/audit', { apiKey: key })).body.items;
    expect(audit.filter((e: { action: string }) => e.action === 'dispositions.uploaded')).toEqual([]);
  });

  it('accepts a valid file with 202, records it in the job, and a second upload of it records nothing new', async () => {
    const key = await consoleKey(suite.merchantId, 'warehouse@acme.example');
    const a = await returnWithItem();
    const b = await returnWithItem();
    const csv = [
      HEADER,
      `${a.returnId},SKU,${a.sku},EMPTY_BOX,REMOVE_SUSPECT_ABUSE,DROPOFF,CASH,WH-1,,https://img.example/a.jpg|https://img.example/b.jpg,"box, empty"`,
      `${b.returnId},SKU,${b.sku},NEW,RESTOCK,,,,,,`,
      '',
    ].join('\r\n');
    const first = await upload(key, csv);
    expect(first.status).toBe(202);
    expect(first.body).toEqual({
      uploadId: expect.stringMatching(/^upl_/),
      status: 'recording',
      rows: 2,
      returns: 2,
    });
    expect(first.headers.get('location')).toBe(`/v1/return/dispositions/uploads/${first.body.uploadId}`);
    // Accepted, not yet recorded: the job says so, and nothing moved.
    const waiting = await suite.api.request('GET', first.headers.get('location')!, { apiKey: key });
    expect(waiting.status).toBe(200);
    expect(waiting.body).toMatchObject({
      uploadId: first.body.uploadId,
      status: 'recording',
      rows: 2,
      returns: 2,
      returnsRecorded: 0,
      returnsAlreadyPresent: 0,
      returnsFailed: 0,
    });
    expect(waiting.body.finishedAt).toBeUndefined();
    expect(await getRecord(keys.returnDispositions(suite.merchantId, a.returnId))).toBeUndefined();

    await runUploadWorker({ merchantId: suite.merchantId });
    const done = await status(key, first.body.uploadId);
    expect(done.body).toMatchObject({
      status: 'done',
      returnsRecorded: 2,
      returnsAlreadyPresent: 0,
      returnsFailed: 0,
      failures: [],
      finishedAt: expect.any(String),
    });
    // The note and images are free text, kept beside the dispositions (free-text.test.ts).
    const { texts } = await loadReturnDispositions(suite.merchantId, a.returnId, Date.now());
    expect(texts['0']).toMatchObject({
      images: ['https://img.example/a.jpg', 'https://img.example/b.jpg'],
      inspectionNote: 'box, empty',
    });
    expect((await countersOf(suite.merchantId, emailOf(a.order))).c_abr).toBe(1);
    expect((await countersOf(suite.merchantId, emailOf(b.order))).c_abr).toBeUndefined();
    // A finished job is off the queue: running the worker again changes nothing.
    expect(await runUploadWorker({ merchantId: suite.merchantId })).toEqual([]);

    const again = await upload(key, csv);
    expect(again.status).toBe(202);
    expect(again.body.uploadId).not.toBe(first.body.uploadId);
    await runUploadWorker({ merchantId: suite.merchantId });
    expect((await status(key, again.body.uploadId)).body).toMatchObject({
      status: 'done',
      returnsRecorded: 0,
      returnsAlreadyPresent: 2,
    });
    expect((await countersOf(suite.merchantId, emailOf(a.order))).c_abr).toBe(1);

    const audit = (await suite.api.request('GET', '/v1/audit', { apiKey: key })).body.items;
    expect(audit[0]).toMatchObject({
      action: 'dispositions.uploaded',
      keyName: 'warehouse@acme.example',
      subject: '2 rows',
      detail: `upload ${again.body.uploadId}, 2 returns`,
    });
  });

  it('counts a return a crashed run already recorded as present, and moves its counters once', async () => {
    const key = await consoleKey(suite.merchantId);
    const a = await returnWithItem();
    const b = await returnWithItem();
    const rowOf = (r: { returnId: string; sku: string }) =>
      `${r.returnId},SKU,${r.sku},EMPTY_BOX,REMOVE_SUSPECT_ABUSE,DROPOFF,CASH,WH-1,,,`;
    const accepted = await upload(key, [HEADER, rowOf(a), rowOf(b)].join('\n'));
    expect(accepted.status).toBe(202);
    // A first run that recorded return a, then died before counting its chunk.
    await startAttempt(suite.merchantId, accepted.body.uploadId);
    await recordDispositions({
      endpoint: 'disposition',
      merchantId: suite.merchantId,
      body: {
        itemDispositions: [
          {
            identifierType: 'SKU',
            identifier: a.sku,
            returnedItemCondition: 'EMPTY_BOX',
            dispositionOutcome: 'REMOVE_SUSPECT_ABUSE',
            returnMethod: { returnMethod: 'DROPOFF' },
            refundMode: { refundMode: 'CASH' },
            warehouseIdentifier: 'WH-1',
          },
        ],
      },
      pathParameters: { 'return-id': a.returnId },
    });
    await recordUpload(suite.merchantId, accepted.body.uploadId);
    expect((await status(key, accepted.body.uploadId)).body).toMatchObject({
      status: 'done',
      returnsRecorded: 1,
      returnsAlreadyPresent: 1,
    });
    expect((await countersOf(suite.merchantId, emailOf(a.order))).c_abr).toBe(1);
    expect((await countersOf(suite.merchantId, emailOf(b.order))).c_abr).toBe(1);
  });

  it("is recorded by the worker Lambda when its rule on the jobs' bus brings the new upload's ids", async () => {
    const key = await consoleKey(suite.merchantId);
    const a = await returnWithItem();
    const accepted = await upload(key, [HEADER, `${a.returnId},SKU,${a.sku},NEW,RESTOCK,,,,,,`].join('\n'));
    const item = await getRecord<Record<string, unknown>>(
      uploadKeys.upload(suite.merchantId, accepted.body.uploadId),
    );
    // What the rule sends: the job attributes the pipe reads from the inserted item (lib/upload-worker.ts).
    expect(item).toMatchObject({ entity: 'dispositionUpload', jobId: accepted.body.uploadId });
    expect(await handler({ merchantId: item!.merchantId, uploadId: item!.jobId })).toEqual({
      status: 'done',
    });
    expect((await status(key, accepted.body.uploadId)).body).toMatchObject({
      status: 'done',
      returnsRecorded: 1,
    });
    expect(await getRecord(keys.returnDispositions(suite.merchantId, a.returnId))).toBeDefined();
  });

  it('reports an event it cannot read by failing the run (so it is kept), recording nothing', async () => {
    const key = await consoleKey(suite.merchantId);
    const a = await returnWithItem();
    const accepted = await upload(key, [HEADER, `${a.returnId},SKU,${a.sku},NEW,RESTOCK,,,,,,`].join('\n'));
    // A DynamoDB stream record, as the worker was fed before: not what the rule sends.
    const streamRecord = {
      Records: [{ eventName: 'INSERT', dynamodb: { NewImage: { uploadId: { S: 'x' } } } }],
    };
    for (const event of [streamRecord, { merchantId: suite.merchantId }, null])
      await expect(handler(event)).rejects.toThrow(BadUploadEventError);
    expect(await getRecord(uploadKeys.upload(suite.merchantId, accepted.body.uploadId))).toMatchObject({
      status: 'recording',
      attempts: 0,
    });
    expect(await getRecord(keys.returnDispositions(suite.merchantId, a.returnId))).toBeUndefined();
    await runUploadWorker({ merchantId: suite.merchantId });
  });

  it('gives a job up as failed after repeated crashed runs, saying why', async () => {
    const key = await consoleKey(suite.merchantId);
    const a = await returnWithItem();
    const accepted = await upload(key, [HEADER, `${a.returnId},SKU,${a.sku},NEW,RESTOCK,,,,,,`].join('\n'));
    for (let run = 0; run < MAX_UPLOAD_ATTEMPTS; run++)
      await startAttempt(suite.merchantId, accepted.body.uploadId);
    await recordUpload(suite.merchantId, accepted.body.uploadId);
    const failed = await status(key, accepted.body.uploadId);
    expect(failed.body).toMatchObject({
      status: 'failed',
      returnsRecorded: 0,
      finishedAt: expect.any(String),
    });
    expect(failed.body.reason).toContain('0 of 1 parts');
    expect(await getRecord(keys.returnDispositions(suite.merchantId, a.returnId))).toBeUndefined();
  });

  it('answers 404 for an unknown upload, another merchant’s upload too, and 403 to an events key', async () => {
    const key = await consoleKey(suite.merchantId);
    expectError(await status(key, 'upl_nope'), 404, 'not_found');
    const a = await returnWithItem();
    const accepted = await upload(key, [HEADER, `${a.returnId},SKU,${a.sku},NEW,RESTOCK,,,,,,`].join('\n'));
    const other = await newMerchant();
    expectError(await status(await consoleKey(other.merchantId), accepted.body.uploadId), 404, 'not_found');
    expectError(await status(suite.apiKey, accepted.body.uploadId), 403, 'forbidden');
    expectError(await upload(suite.apiKey, HEADER), 403, 'forbidden');
    await runUploadWorker({ merchantId: suite.merchantId });
  });

  it('refuses a wrong header, another content type, a non-CSV body and an empty file', async () => {
    const key = await consoleKey(suite.merchantId);
    const header = await upload(key, 'returnId,identifierType,identifier,colour\nr,SKU,x,red');
    expectError(header, 422, 'invalid_csv_rows');
    expect(header.body.error.details).toEqual([
      expect.objectContaining({ line: 1, column: 'returnedItemCondition', code: 'invalid_request' }),
      expect.objectContaining({ line: 1, column: 'dispositionOutcome', code: 'invalid_request' }),
      expect.objectContaining({ line: 1, column: 'colour', code: 'unknown_field' }),
    ]);
    expectError(
      await upload(key, `${HEADER}\nr`, 'application/json'),
      400,
      'invalid_request',
      'Content-Type',
    );
    const ragged = await upload(key, `${HEADER}\na,b`);
    expectError(ragged, 422, 'invalid_csv_rows');
    expect(ragged.body.error.details[0].line).toBe(2);
    expectError(await upload(key, HEADER), 422, 'invalid_csv_rows');
    expectError(await upload(key, '  '), 400, 'invalid_request');
  });
});
