/**
 * The history import job (functions/history-import.ts): its handler, run here as Lambda runs it,
 * reads the NDJSON object from S3 (a local server speaking GetObject, local/s3-stand-in.ts,
 * through the real S3 client) and imports into DynamoDB Local with the code `admin import` runs.
 */
import { mkdtempSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `import-job-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  process.env.IMPORT_BUCKET = 'imports-test';
});

const { startS3ObjectServer } = await import('../local/s3-stand-in.ts');
const s3 = await startS3ObjectServer();
// Read once, when the handler module builds its client.
process.env.S3_ENDPOINT = s3.endpoint;

const { handler } = await import('../functions/history-import.ts');
const { buildLambdaAsset } = await import('../lib/lambda-bundle.ts');
const { historyLines, toNdjson } = await import('../eval/history-file.ts');
const { dynamoDbClient } = await import('../shared/store/client.ts');
const { ensureTable } = await import('../shared/store/ensure-table.ts');
const { admin } = await import('./support/admin.ts');
const { newMerchant } = await import('./support/api.ts');
const { createOwnTable, merchantItems, copyTable } = await import('./support/table-snapshot.ts');

const BUCKET = 'imports-test';
const DAY = 86_400_000;
const START = Date.now() - 200 * DAY;

type Handler = typeof handler;

/** A Lambda context with plenty of time, or one whose time runs out after `events` checks. */
const roomy = { getRemainingTimeInMillis: () => 900_000 };
function runningOut(checks: number) {
  let asked = 0;
  return { getRemainingTimeInMillis: () => (++asked <= checks ? 900_000 : 10_000) };
}

beforeAll(() => createOwnTable());
afterAll(() => s3.close());

describe('the history import job', () => {
  const lines = historyLines({ shoppers: 12, seed: 5, start: START });

  it('imports an S3 object like `admin import`; out of time it stops and says where to resume; re-run, it changes nothing', async () => {
    const { merchantId } = await newMerchant({ accountUpdatesEnabled: true });
    const key = `${merchantId}/history.ndjson`;
    s3.put(BUCKET, key, toNdjson(lines));
    // The same merchant on a second table, imported there by the CLI from a local file.
    const cliTable = `${process.env.TABLE_NAME}-cli`;
    await ensureTable(dynamoDbClient, cliTable, { stream: false });
    await copyTable(cliTable, (k) => k.includes(merchantId));
    const file = join(mkdtempSync(join(tmpdir(), 'import-job-')), 'history.ndjson');
    await writeFile(file, toNdjson(lines));
    const cli = await admin('import', '--merchant', merchantId, '--file', file, { TABLE_NAME: cliTable });
    expect(cli.code, cli.stderr).toBe(0);

    const first = await handler({ merchantId, key }, runningOut(10));
    expect(first).toMatchObject({ merchantId, key, events: lines.length, complete: false });
    expect(first.imported).toBeGreaterThan(0);
    expect(first.imported).toBeLessThanOrEqual(10);
    expect(first.resumeFrom).toBeGreaterThan(0);
    expect(first.resumeFrom).toBeLessThanOrEqual(first.imported);

    const second = await handler({ merchantId, key, resumeFrom: first.resumeFrom }, roomy);
    expect(second).toMatchObject({ events: lines.length, complete: true, rejected: 0 });
    expect(second.resumeFrom).toBeUndefined();
    // Events the first run finished beyond its resume point are found present, not imported twice.
    expect(second.imported + second.alreadyPresent).toBe(lines.length - first.resumeFrom!);
    expect(first.imported + second.imported).toBe(lines.length);
    const afterJob = await merchantItems(merchantId);
    expect(afterJob).toEqual(await merchantItems(merchantId, cliTable));

    const again = await handler({ merchantId, key }, roomy);
    expect(again).toMatchObject({ imported: 0, alreadyPresent: lines.length, complete: true });
    expect(await merchantItems(merchantId)).toEqual(afterJob);
    expect(s3.requests.filter((r) => r === `GET /${BUCKET}/${key}`)).toHaveLength(3);
  });

  it('writes nothing for a bad line, a dry run, a missing object, a key outside the merchant, an unknown merchant', async () => {
    const { merchantId } = await newMerchant({ accountUpdatesEnabled: true });
    const before = await merchantItems(merchantId);
    const bad = lines.map((l) => JSON.stringify(l));
    const order = lines.findIndex((l) => l.type === 'order');
    bad[order] = JSON.stringify({
      ...lines[order],
      body: { ...(lines[order]!.body as object), timestamp: 'soon' },
    });
    s3.put(BUCKET, `${merchantId}/bad.ndjson`, `${bad.join('\n')}\n`);
    s3.put(BUCKET, `${merchantId}/good.ndjson`, toNdjson(lines));

    await expect(handler({ merchantId, key: `${merchantId}/bad.ndjson` }, roomy)).rejects.toMatchObject({
      name: 'ImportRefusedError',
      message: expect.stringContaining(`line ${order + 1} (body.timestamp): invalid_timestamp`),
    });
    const dry = await handler({ merchantId, key: `${merchantId}/good.ndjson`, dryRun: true }, roomy);
    expect(dry).toMatchObject({ events: lines.length, imported: 0, dryRun: true, complete: true });
    await expect(handler({ merchantId, key: `${merchantId}/missing.ndjson` }, roomy)).rejects.toMatchObject({
      name: 'ImportRefusedError',
      message: `cannot read s3://${BUCKET}/${merchantId}/missing.ndjson: NoSuchKey: The specified key does not exist.`,
    });
    await expect(handler({ merchantId, key: 'someone-else/good.ndjson' }, roomy)).rejects.toThrow(
      `not under the merchant's prefix ${merchantId}/`,
    );
    await expect(handler({ merchantId: 'm_unknown', key: 'm_unknown/x.ndjson' }, roomy)).rejects.toThrow(
      'no merchant m_unknown',
    );
    await expect(
      handler({ merchantId, key: `${merchantId}/good.ndjson`, resumeFrom: 10_000 }, roomy),
    ).rejects.toThrow('past the end');
    await expect(handler({ merchantId, file: 'x' }, roomy)).rejects.toThrow();
    expect(await merchantItems(merchantId)).toEqual(before);
  });

  it('bundled with the Lambda settings and aliases, reads the object through the S3 client', async () => {
    const { merchantId } = await newMerchant({ accountUpdatesEnabled: true });
    const key = `${merchantId}/bundled.ndjson`;
    s3.put(BUCKET, key, toNdjson(lines.slice(0, 20)));
    const asset = await buildLambdaAsset(
      'functions/history-import.ts',
      mkdtempSync(join(tmpdir(), 'bundle-test-')),
    );
    const bundled = (await import(asset.index)) as { handler: Handler };
    const result = await bundled.handler({ merchantId, key }, roomy);
    expect(result).toMatchObject({ events: 20, imported: 20, complete: true });
  });
});
