/**
 * The history import workflow's slice (functions/history-import.ts): its handler, run here as the
 * state machine runs it (the output of one slice is the input of the next), streams the NDJSON
 * object from S3 (a local server speaking HeadObject and ranged GetObject, local/s3-stand-in.ts,
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
const { runImportLocally } = await import('./support/import-state-machine.ts');

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

  /** Slices run until the import is done or refused, as the state machine runs them. */
  async function untilFinished(first: Awaited<ReturnType<Handler>>, context = roomy) {
    let result = first;
    while (result.progress.phase === 'validating' || result.progress.phase === 'importing') {
      result = await handler(result, context);
    }
    return result;
  }

  it('imports an S3 object like `admin import`, in slices that stop before their time is up and resume where they stopped; re-run, it changes nothing', async () => {
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

    // An upload names only the key: the merchant is its first segment.
    const checking = await handler({ key }, runningOut(10));
    expect(checking).toMatchObject({ merchantId, key, progress: { phase: 'validating', slices: 1 } });
    expect(checking.progress.resumeLine).toBeGreaterThan(1);
    expect(checking.progress.events).toBeLessThan(lines.length);
    let result = await handler(checking, roomy);
    expect(result.progress).toMatchObject({ phase: 'importing', events: lines.length, imported: 0 });

    const slices: (typeof result.progress)[] = [];
    while (result.progress.phase === 'importing') {
      result = await handler(result, runningOut(40));
      slices.push(result.progress);
    }
    expect(slices.length).toBeGreaterThan(2);
    // Each slice stopped further on than the one before, reading again from a line it recorded.
    for (const [i, slice] of slices.slice(1, -1).entries()) {
      expect(slice.resumeLine).toBeGreaterThan(slices[i]!.resumeLine);
      expect(slice.from.line).toBeLessThanOrEqual(slice.resumeLine);
    }
    expect(result.progress).toMatchObject({ phase: 'done', events: lines.length, rejected: 0 });
    expect(result.progress.imported).toBe(lines.length);
    const afterJob = await merchantItems(merchantId);
    expect(afterJob).toEqual(await merchantItems(merchantId, cliTable));

    const status = await admin('import', 'status', '--merchant', merchantId, '--file', key);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      merchantId,
      file: key,
      phase: 'done',
      imported: lines.length,
      slices: result.progress.slices,
    });

    const again = await untilFinished(await handler({ merchantId, key }, roomy));
    expect(again.progress).toMatchObject({ phase: 'done', imported: 0, alreadyPresent: lines.length });
    expect(await merchantItems(merchantId)).toEqual(afterJob);
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

    const refused = await untilFinished(
      await handler({ merchantId, key: `${merchantId}/bad.ndjson` }, roomy),
    );
    expect(refused.progress).toMatchObject({ phase: 'refused', badLines: 1 });
    expect(refused.error).toContain(`line ${order + 1} (body.timestamp): invalid_timestamp`);
    const dry = await untilFinished(
      await handler({ merchantId, key: `${merchantId}/good.ndjson`, dryRun: true }, roomy),
    );
    expect(dry.progress).toMatchObject({ phase: 'done', events: lines.length, imported: 0 });
    await expect(handler({ merchantId, key: `${merchantId}/missing.ndjson` }, roomy)).rejects.toMatchObject({
      name: 'ImportRefusedError',
      message: `cannot read s3://${BUCKET}/${merchantId}/missing.ndjson: NoSuchKey: The specified key does not exist.`,
    });
    await expect(handler({ merchantId, key: 'someone-else/good.ndjson' }, roomy)).rejects.toThrow(
      `not under the merchant's prefix ${merchantId}/`,
    );
    await expect(handler({ key: 'm_unknown/x.ndjson' }, roomy)).rejects.toThrow('no merchant m_unknown');
    // The object changed between slices: refused, not half-imported.
    const checked = await handler({ merchantId, key: `${merchantId}/good.ndjson` }, runningOut(5));
    s3.put(BUCKET, `${merchantId}/good.ndjson`, `${toNdjson(lines)}${JSON.stringify(lines[0])}\n`);
    await expect(handler(checked, roomy)).rejects.toThrow('changed while it was being imported');
    await expect(handler({ merchantId, file: 'x' }, roomy)).rejects.toThrow();
    expect(await merchantItems(merchantId)).toEqual(before);
    // Each import's status says where it stands and why it stopped.
    const changed = await admin(
      'import',
      'status',
      '--merchant',
      merchantId,
      '--file',
      `${merchantId}/good.ndjson`,
    );
    expect(JSON.parse(changed.stdout).error).toContain('changed while it was being imported');
  });

  it('runs as the synthesized state machine: an upload starts it, slices loop until done, a failed slice is retried, bad lines end it refused', async () => {
    const { merchantId } = await newMerchant({ accountUpdatesEnabled: true });
    const key = `${merchantId}/workflow.ndjson`;
    s3.put(BUCKET, key, toNdjson(lines));
    // Each slice's time runs out after 30 checks, and the third slice's run crashes once.
    let runs = 0;
    const slice = async (input: unknown) => {
      if (++runs === 3) throw new Error('the function crashed');
      return handler(input, runningOut(30));
    };
    const run = await runImportLocally(key, slice);
    expect(run.ended, String(run.error)).toBe('succeeded');
    expect(run.output).toMatchObject({
      merchantId,
      key,
      progress: { phase: 'done', events: lines.length, imported: lines.length, alreadyPresent: 0 },
    });
    expect(run.slices).toBeGreaterThan(4);
    // Every slice but the crashed run is counted in the recorded progress.
    expect((run.output as { progress: { slices: number } }).progress.slices).toBe(run.slices - 1);

    const again = await runImportLocally(key, (input) => handler(input, roomy));
    expect(again.output).toMatchObject({
      progress: { phase: 'done', imported: 0, alreadyPresent: lines.length },
    });

    const bad = lines.map((l) => JSON.stringify(l));
    bad[3] = '{"type":';
    s3.put(BUCKET, `${merchantId}/bad.ndjson`, `${bad.join('\n')}\n`);
    const refused = await runImportLocally(`${merchantId}/bad.ndjson`, (input) => handler(input, roomy));
    expect(refused.ended).toBe('failed');
    expect(refused.error).toMatchObject({ name: 'ImportRefused' });
    expect(refused.error!.message).toContain('line 4: invalid_request: The line is not JSON.');

    // An object that cannot be read is not retried: the execution fails at once.
    const missing = await runImportLocally(`${merchantId}/missing.ndjson`, (input) => handler(input, roomy));
    expect(missing).toMatchObject({ ended: 'failed', slices: 1, error: { name: 'ImportRefusedError' } });
  });

  it('hands a long import on to a new execution of itself every few slices, named by run and generation, until done', async () => {
    const { merchantId } = await newMerchant({ accountUpdatesEnabled: true });
    const key = `${merchantId}/long.ndjson`;
    s3.put(BUCKET, key, toNdjson(lines));
    let runs = 0;
    const slice = async (input: unknown) => {
      // A crash in a later execution is still retried there.
      if (++runs === 5) throw new Error('the function crashed');
      return handler(input, runningOut(25));
    };
    const run = await runImportLocally(key, slice, { slicesPerExecution: 2 });
    expect(run.ended, String(run.error)).toBe('succeeded');
    expect(run.output).toMatchObject({
      merchantId,
      key,
      progress: { phase: 'done', events: lines.length, imported: lines.length },
    });
    const generations = run.started.length + 1;
    expect(generations).toBeGreaterThan(2);
    // Every execution but the last ran its two slices; the crashed run is not counted.
    const recorded = (run.output as { progress: { slices: number } }).progress.slices;
    expect(recorded).toBe(run.slices - 1);
    expect(recorded).toBeGreaterThan(2 * (generations - 1));
    expect(recorded).toBeLessThanOrEqual(2 * generations);
    // One root for the import, one name per generation: a retried start names the same execution.
    const [root] = run.started[0]!.split('-g');
    expect(root).toMatch(/^[0-9a-f]{40}$/);
    expect(run.started).toEqual(run.started.map((_, i) => `${root}-g${i + 1}`));
    expect(run.output).toMatchObject({ run: { root, generation: generations - 1 } });
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
    let result = await bundled.handler({ merchantId, key }, roomy);
    while (result.progress.phase === 'validating' || result.progress.phase === 'importing') {
      result = await bundled.handler(result, roomy);
    }
    expect(result.progress).toMatchObject({ phase: 'done', events: 20, imported: 20 });
  });
});
