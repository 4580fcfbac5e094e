import { constants } from 'node:buffer';
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

vi.hoisted(() => {
  process.env.TABLE_NAME = `import-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
});

const { historyLines, toNdjson } = await import('../eval/history-file.ts');
const { readDigestKey } = await import('../shared/digests/digest-keys.ts');
const { dynamoDbClient } = await import('../shared/store/client.ts');
const { ensureTable } = await import('../shared/store/ensure-table.ts');
const { listDecidedEvents } = await import('../shared/store/decided-events.ts');
const { listReviews } = await import('../shared/store/reviews.ts');
const { admin, jsonFile } = await import('./support/admin.ts');
const { newMerchant, startTestApi } = await import('./support/api.ts');
const { parseImportFile } = await import('../shared/history-import/import-lines.ts');
const { importHistory } = await import('../shared/history-import/import-history.ts');
const { getMerchant } = await import('../shared/store/merchants.ts');
const { createOwnTable, dropOwnTable, merchantItems, copyTable } = await import(
  './support/table-snapshot.ts'
);

const DAY = 86_400_000;
const START = Date.now() - 200 * DAY;
let dir: string;

const CLEAN_TABLE = `${process.env.TABLE_NAME}-clean`;
beforeAll(async () => {
  await createOwnTable();
  await ensureTable(dynamoDbClient, CLEAN_TABLE, { stream: false });
  dir = await mkdtemp(join(tmpdir(), 'import-'));
});
afterAll(async () => {
  await dropOwnTable();
  await dropOwnTable(CLEAN_TABLE);
});

async function historyFile(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

const summaryOf = (stdout: string) => JSON.parse(stdout) as Record<string, number>;

afterEach(() => vi.useRealTimers());

/** The endpoint path of an imported line, as a live call would have used. */
const PATHS: Record<string, (ids: Record<string, string>) => string> = {
  order: () => '/v1/order',
  return: () => '/v1/return',
  disposition: (ids) => `/v1/return/disposition/${ids['return-id']}`,
  dispute: (ids) => `/v1/order/dispute/${ids['order-id']}`,
  signup: () => '/v1/evaluate/signup',
  login: () => '/v1/evaluate/login',
  account: () => '/v1/evaluate/account',
};

/**
 * Identity histories, and the decisions of the records keyed by merchant-side ids (logins and
 * account updates have service ids only), with the merchant left out: what must come out the same
 * however the events arrived.
 */
/** Gives `to` the digest key of `from` (local keys are files: test-env.ts sets their directory). */
async function shareDigestKey(from: string, to: string): Promise<void> {
  await readDigestKey(from);
  const dir = process.env.DIGEST_KEY_DIR!;
  await copyFile(join(dir, encodeURIComponent(from)), join(dir, encodeURIComponent(to)));
}

async function historyAndDecisions(merchantId: string) {
  const out = new Map<string, string>();
  for (const [key, text] of await merchantItems(merchantId)) {
    const item = JSON.parse(text.replaceAll(merchantId, 'M')) as Record<string, unknown>;
    const neutral = key.replaceAll(merchantId, 'M');
    if (item.kind !== undefined && item.firstSeenAt !== undefined) out.set(neutral, JSON.stringify(item));
    else if (/#(ORDER|RETURN|SIGNUP)#/.test(key) && (item.decision ?? item.decisions) !== undefined)
      out.set(neutral, JSON.stringify(item.decision ?? item.decisions));
  }
  return out;
}

describe('admin import', () => {
  const lines = historyLines({ shoppers: 12, seed: 7, start: START });
  const types = new Set(lines.map((l) => l.type));

  it('imports a file of mixed events at their own times, with no review items; a second run changes nothing', async () => {
    expect([...types].sort()).toEqual([
      'account',
      'disposition',
      'dispute',
      'login',
      'order',
      'return',
      'signup',
    ]);
    const { merchantId } = await newMerchant({ accountUpdatesEnabled: true });
    const file = await historyFile('mixed.ndjson', toNdjson(lines));
    // Every return goes to review: live, each would open a review item.
    const reviewAll = {
      eventType: 'return',
      rules: [{ name: 'review_every_return', condition: 'abuseScore >= 0', decision: 'REVIEW' }],
      defaultBranch: { name: 'default_approve', decision: 'APPROVE' },
    };
    const set = await admin(
      'workflows',
      'set',
      '--merchant',
      merchantId,
      '--type',
      'return',
      '--file',
      await jsonFile(reviewAll),
    );
    expect(set.code, set.stderr).toBe(0);

    const first = await admin('import', '--merchant', merchantId, '--file', file);
    expect(first.code, first.stderr).toBe(0);
    // Not a terminal: no progress bar, and stdout is the summary alone.
    expect(first.stderr).toBe('');
    expect(summaryOf(first.stdout)).toMatchObject({
      events: lines.length,
      imported: lines.length,
      alreadyPresent: 0,
      rejected: 0,
    });
    const afterFirst = await merchantItems(merchantId);
    // Records and history were written, dated at the events' times; the queue stays empty.
    expect([...afterFirst.keys()].some((k) => k.includes('#ORDER#'))).toBe(true);
    expect(
      [...afterFirst.values()].some((item) => item.includes('"subDecision":"review_every_return"')),
    ).toBe(true);
    expect((await listReviews(merchantId, 'open', 10)).reviews).toEqual([]);

    const second = await admin('import', '--merchant', merchantId, '--file', file);
    expect(second.code, second.stderr).toBe(0);
    expect(summaryOf(second.stdout)).toMatchObject({
      events: lines.length,
      imported: 0,
      alreadyPresent: lines.length,
    });
    expect(await merchantItems(merchantId)).toEqual(afterFirst);
  });

  it('reports a bad line with its number and field and records nothing, with or without --dry-run', async () => {
    const { merchantId } = await newMerchant({ accountUpdatesEnabled: true });
    const bad = lines.map((l) => JSON.stringify(l));
    const order = lines.findIndex((l) => l.type === 'order');
    bad[order] = JSON.stringify({
      ...lines[order],
      body: { ...(lines[order]!.body as object), timestamp: 'soon' },
    });
    const file = await historyFile('bad.ndjson', `${bad.join('\n')}\n`);
    const before = await merchantItems(merchantId);

    for (const extra of [[], ['--dry-run']]) {
      const result = await admin('import', '--merchant', merchantId, '--file', file, ...extra);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(JSON.parse(result.stderr).error).toContain(
        `line ${order + 1} (body.timestamp): invalid_timestamp`,
      );
      expect(await merchantItems(merchantId)).toEqual(before);
    }
    const dry = await admin(
      'import',
      '--merchant',
      merchantId,
      '--file',
      await historyFile('good.ndjson', toNdjson(lines)),
      '--dry-run',
    );
    expect(dry.code, dry.stderr).toBe(0);
    expect(summaryOf(dry.stdout)).toMatchObject({ events: lines.length, imported: 0 });
    expect(await merchantItems(merchantId)).toEqual(before);
  });

  it("imports exactly what live delivery at the events' own times records, but the review items", async () => {
    const file = toNdjson(lines);
    const live = await newMerchant({ accountUpdatesEnabled: true });
    const api = await startTestApi();
    try {
      for (const event of parseImportFile(file).events) {
        vi.useFakeTimers({ toFake: ['Date'] });
        vi.setSystemTime(event.at);
        const response = await api.post(PATHS[event.type]!(event.pathParameters), event.body, {
          apiKey: live.apiKey,
        });
        vi.useRealTimers();
        expect(response.status, `line ${event.line}`).toBe(200);
      }
    } finally {
      await api.close();
    }
    const imported = await newMerchant({ accountUpdatesEnabled: true });
    // Digests are keyed per merchant: the two merchants share one key here so that their tables
    // can be compared item by item (the import digests with the merchant's key, as live calls do).
    await shareDigestKey(live.merchantId, imported.merchantId);
    const result = await admin(
      'import',
      '--merchant',
      imported.merchantId,
      '--file',
      await historyFile('live.ndjson', file),
    );
    expect(result.code, result.stderr).toBe(0);

    const expected = await historyAndDecisions(live.merchantId);
    expect(expected.size).toBeGreaterThan(lines.length / 2);
    expect([...expected.keys()].filter((k) => /#(ORDER|RETURN|SIGNUP)#/.test(k)).length).toBeGreaterThan(20);
    const got = await historyAndDecisions(imported.merchantId);
    expect(got).toEqual(expected);
  });

  it('killed halfway and run again, the table equals a clean import', async () => {
    const big = historyLines({ shoppers: 60, seed: 11, start: START });
    const file = await historyFile('big.ndjson', toNdjson(big));
    const { merchantId } = await newMerchant({ accountUpdatesEnabled: true });
    // The same merchant on a second table, for the clean import to compare with.
    const cleanTable = CLEAN_TABLE;
    await copyTable(cleanTable, (key) => key.includes(merchantId));

    const clean = await admin('import', '--merchant', merchantId, '--file', file, {
      TABLE_NAME: cleanTable,
    });
    expect(clean.code, clean.stderr).toBe(0);

    // The merchant's newest orders from its listing: a few small queries, not a scan that would
    // compete with the import it watches.
    const records = async () => (await listDecidedEvents(merchantId, 'order', 0, 10)).events.length;
    const child = spawn(
      process.execPath,
      ['scripts/admin.ts', 'import', '--merchant', merchantId, '--file', file, '--concurrency', '4'],
      {
        env: process.env,
        stdio: 'ignore',
      },
    );
    const exited = new Promise((resolve) => child.on('exit', resolve));
    while ((await records()) < 10) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGKILL');
    await exited;

    const resumed = await admin('import', '--merchant', merchantId, '--file', file);
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = summaryOf(resumed.stdout);
    expect(summary.alreadyPresent).toBeGreaterThan(0);
    expect(summary.imported).toBeGreaterThan(0);
    expect(summary.imported! + summary.alreadyPresent!).toBe(big.length);
    expect(await merchantItems(merchantId)).toEqual(await merchantItems(merchantId, cleanTable));
  });

  it("streams a file longer than Node's longest string in bounded memory: every event imported, none twice", async () => {
    const events = historyLines({ shoppers: 30, seed: 13, start: START });
    const { merchantId } = await newMerchant({ accountUpdatesEnabled: true });
    const merchant = (await getMerchant(merchantId))!;
    const source = paddedHistory(
      events.map((l) => JSON.stringify(l)),
      constants.MAX_STRING_LENGTH,
    );
    const { bytes } = await source.describe();
    // The whole file as one string, as the import read it before, cannot even exist.
    expect(bytes).toBeGreaterThan(constants.MAX_STRING_LENGTH);
    const held = () => {
      const memory = process.memoryUsage();
      return memory.heapUsed + memory.arrayBuffers;
    };
    const before = held();
    let most = before;
    let lastByte = 0;
    const result = await importHistory(source, {
      merchant,
      onRead: (_progress, byte) => {
        most = Math.max(most, held());
        lastByte = byte;
      },
    });
    expect(lastByte).toBe(bytes);
    expect(result).toMatchObject({
      phase: 'done',
      events: events.length,
      imported: events.length,
      rejected: 0,
    });
    // What it held at most, garbage not yet collected included, is a small fraction of the file
    // (a quarter at most: when the collector runs moves it by tens of MiB, 82 MiB seen once).
    expect(most - before).toBeLessThan(128 * 1024 * 1024);
    expect((await listDecidedEvents(merchantId, 'order', 0, 100)).events.length).toBe(
      events.filter((l) => l.type === 'order').length,
    );
  });
});

/**
 * A history file of `lines` padded with blank lines of spaces (which the import reads and skips)
 * to more than `atLeast` bytes, made as it is read: it never exists whole, in memory or on disk.
 */
function paddedHistory(lines: readonly string[], atLeast: number) {
  const blank = Buffer.concat([Buffer.alloc(60_000, ' '), Buffer.from('\n')]);
  const blanksPerLine = Math.ceil(atLeast / lines.length / blank.length);
  const segments = lines.flatMap((line) => [
    Buffer.from(`${line}\n`),
    ...Array.from({ length: blanksPerLine }, () => blank),
  ]);
  const bytes = segments.reduce((n, segment) => n + segment.length, 0);
  return {
    name: 'padded.ndjson',
    describe: async () => ({ bytes, version: 'v1' }),
    read: async (fromByte: number) =>
      (async function* () {
        let offset = 0;
        for (const segment of segments) {
          if (offset + segment.length > fromByte) yield segment.subarray(Math.max(0, fromByte - offset));
          offset += segment.length;
        }
      })(),
  };
}
