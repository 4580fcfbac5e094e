import { describe, expect, it } from 'vitest';
import { expectError, withTestApi } from '../support/api.ts';
import { countersOf, emailOf } from '../support/commerce.ts';
import { consoleKey, orderAndReturn } from '../support/console.ts';

const { CSV_COLUMNS } = await import('../../shared/console/dispositions-upload.ts');
const { getRecord } = await import('../../shared/store/record-once.ts');
const { keys } = await import('../../shared/store/keys.ts');

const HEADER = CSV_COLUMNS.join(',');

/** POST /v1/return/dispositions/upload: all-or-nothing validation, then idempotent recording. */
describe('dispositions CSV upload', () => {
  const suite = withTestApi();
  const upload = (key: string, csv: string, contentType = 'text/csv') =>
    suite.api.request('POST', '/v1/return/dispositions/upload', {
      apiKey: key,
      headers: { 'Content-Type': contentType },
      rawBody: csv,
    });

  async function returnWithItem() {
    const { order, returnBody } = await orderAndReturn(suite.api, suite.apiKey);
    const sku = order.lineItems[0]!.identifiers[0]!.identifier;
    return { order, returnId: returnBody.providerReturnId, sku };
  }

  it('records nothing when any row fails, and lists every failing cell with line, column and code', async () => {
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
    expect(await getRecord(keys.returnDispositions(suite.merchantId, good.returnId))).toBeUndefined();
    expect((await countersOf(suite.merchantId, emailOf(good.order))).c_abr).toBeUndefined();
  });

  it('records a valid file per return, moves counters, and changes nothing when uploaded again', async () => {
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
    expect(first.body).toEqual({ rows: 2, returns: 2, returnsChanged: 2 });
    const stored = await getRecord<{ byLine: Record<string, { images: string[]; inspectionNote: string }> }>(
      keys.returnDispositions(suite.merchantId, a.returnId),
    );
    expect(stored?.byLine['0']).toMatchObject({
      images: ['https://img.example/a.jpg', 'https://img.example/b.jpg'],
      inspectionNote: 'box, empty',
    });
    expect((await countersOf(suite.merchantId, emailOf(a.order))).c_abr).toBe(1);
    expect((await countersOf(suite.merchantId, emailOf(b.order))).c_abr).toBeUndefined();

    const again = await upload(key, csv);
    expect(again.body).toEqual({ rows: 2, returns: 2, returnsChanged: 0 });
    expect((await countersOf(suite.merchantId, emailOf(a.order))).c_abr).toBe(1);

    const audit = (await suite.api.request('GET', '/v1/audit', { apiKey: key })).body.items;
    expect(audit[0]).toMatchObject({ action: 'dispositions.uploaded', keyName: 'warehouse@acme.example' });
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
    expectError(await upload(suite.apiKey, HEADER), 403, 'forbidden');
  });
});
