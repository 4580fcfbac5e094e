/**
 * `npm run bench -- lake`: the nightly learning steps on the lake of the merchant the design is sized
 * for (docs/benchmarks.md, The lake): 180 days of orders at 5 million a month (30 million), and a
 * month of 1 million returns, 2 million signups, 30 million logins and 1 million account updates,
 * with their feedback, generated with DuckDB SQL into the lake's layout (Parquet by kind, merchant
 * and day). For each event type it runs the item's two steps as the state machine does: the training
 * set query (readTrainingSet, on DuckDB where Athena runs it in AWS), then the fit in a process of
 * its own (scripts/bench-lake-fit.ts), and prints wall time, rows read, rows fed and peak memory.
 * LAKE_BENCH_DIR keeps the generated lake between runs (it is made once).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVENT_TYPES, type EventType } from '../shared/contract/endpoints.ts';
import { duckDbRunner } from '../shared/lake/lake-queries.ts';
import { openLocalLake } from '../shared/lake/local-lake.ts';
import { readTradeoffHistogram } from '../shared/lake/tradeoff-histogram.ts';
import { readTrainingSetFor } from '../shared/use-cases/train-merchant-model.ts';

const MERCHANT = 'mer_benchlake00000001';
const DAY = 86_400_000;
const NOW = Date.parse('2026-11-27T00:00:00.000Z');
/** LAKE_BENCH_SCALE (0-1] makes every volume that share of the design's, for a quicker round. */
const SCALE = Number(process.env.LAKE_BENCH_SCALE ?? 1);
/** LAKE_BENCH_MEMORY is DuckDB's memory_limit for the queries (it spills past it). */
const MEMORY_LIMIT = process.env.LAKE_BENCH_MEMORY ?? '4GB';
const dir = process.env.LAKE_BENCH_DIR ?? join(tmpdir(), SCALE === 1 ? 'lake-bench' : `lake-bench-${SCALE}`);
/** Rows per kind and the days they span, and the share of them that get abusive feedback. */
const VOLUMES: Record<EventType, { rows: number; days: number; signals: string[] }> = {
  order: {
    rows: 30_000_000,
    days: 180,
    signals: ['newCustomer', 'cardSharedAcrossEmails', 'deviceSharedAcrossEmails'],
  },
  return: { rows: 1_000_000, days: 30, signals: ['moreUnitsReturnedThanBought', 'returnsLast30Days'] },
  signup: {
    rows: 2_000_000,
    days: 30,
    signals: ['deviceSharedWithOtherAccounts', 'signupsFromDeviceLastHour'],
  },
  login: { rows: 30_000_000, days: 30, signals: ['accountFailuresLastHour', 'deviceAccountsTried'] },
  account: { rows: 1_000_000, days: 30, signals: ['riskyChange', 'deviceNotSeenForAccount'] },
};

const lake = await openLocalLake(dir);
const peakMb = () =>
  Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024);
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

// Identities follow the customer, as in real traffic: each customer has an inbox and a device of
// their own, and one in ten shares a device with another household member (customers c and
// c + DEVICES). Drawn apart from the customer (200,000 devices for every event, each shared by tens
// of customers) a few thousand chargebacks linked almost every account event to feedback.
const CUSTOMERS = 2_000_000;
const DEVICES = 1_800_000;

/** Generates one type's rows and feedback, unless a run before left them (LAKE_BENCH_DIR). */
async function generate(eventType: EventType): Promise<void> {
  if (existsSync(join(dir, 'decided_events', `kind=${eventType}`))) return;
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const { days, signals } = VOLUMES[eventType];
  const rows = Math.round(VOLUMES[eventType].rows * SCALE);
  // Abuse: 0.4 % of orders (LOST chargebacks), 1 % of returns (empty boxes); account events inherit it
  // through a device shared with them (one device in 2,000 is a fraudster's).
  const abusive =
    eventType === 'order' ? 'h1 % 1000 < 4' : eventType === 'return' ? 'h1 % 100 < 1' : 'h3 % 2000 = 0';
  const signalJson = signals
    .map(
      (name, i) =>
        `'"${name}":' || CAST(CASE WHEN ${abusive} THEN (h2 >> ${i * 3}) % 4 ELSE ((h2 >> ${i * 3}) % 16 = 0)::INT END AS VARCHAR)`,
    )
    .join(" || ',' || ");
  console.log(`generating ${rows.toLocaleString('en')} ${eventType} rows over ${days} days...`);
  await lake.run(`
    COPY (
      WITH base AS (
        SELECT i, hash(i, '${eventType}') AS h1, hash(i, 'signals') AS h2,
          hash(hash(i, '${eventType}') % ${CUSTOMERS} % ${DEVICES}, 'device') AS h3,
          ${NOW - days * DAY} + (i * ${days * DAY} // ${rows}) AS event_at
        FROM range(${rows}) AS t(i)
      )
      SELECT
        '${eventType.toUpperCase()}#' || i AS event_key, '${eventType[0]}' || i AS event_id, 0 AS part, event_at,
        CASE WHEN h1 % 200 = 0 THEN 'DECLINE' WHEN h1 % 50 = 0 THEN 'REVIEW' ELSE 'APPROVE' END AS decision,
        CAST(h1 % 100 AS DOUBLE) AS abuse_score, CAST(NULL AS VARCHAR) AS sub_decision,
        '${eventType}-default' AS model_version,
        CAST(10 + h2 % 200 AS DOUBLE) AS value, '{' || ${signalJson} || '}' AS signals,
        ['email#' || (h1 % ${CUSTOMERS})::VARCHAR, 'device#' || (h1 % ${CUSTOMERS} % ${DEVICES})::VARCHAR, 'customer#' || (h1 % ${CUSTOMERS})::VARCHAR] AS identities,
        CAST(('0x' || sha256('${MERCHANT}|${eventType}|${eventType.toUpperCase()}#' || i || '|0')[1:8]) AS UBIGINT) / 4294967296.0 AS sample_key,
        0 AS revision, event_at AS changed_at,
        '${eventType}' AS kind, '${MERCHANT}' AS merchant_id, strftime(make_timestamp(event_at * 1000), '%Y-%m-%d') AS day
      FROM base
    ) TO '${join(dir, 'decided_events')}' (FORMAT parquet, PARTITION_BY (kind, merchant_id, day), APPEND, FILENAME_PATTERN 'part-{uuid}')`);
  if (eventType === 'order' || eventType === 'return') {
    const [idColumn, statusColumns] =
      eventType === 'order'
        ? [
            'order_id',
            `'dispute' AS kind, 'LOST' AS dispute_status, NULL AS return_id, NULL AS line, NULL AS item_condition, NULL AS disposition_outcome`,
          ]
        : [
            'return_id',
            `'disposition' AS kind, NULL AS dispute_status, 'r' || i AS return_id, 0 AS line, 'EMPTY_BOX' AS item_condition, 'REMOVE_SUSPECT_ABUSE' AS disposition_outcome`,
          ];
    await lake.run(`
      COPY (
        WITH base AS (
          SELECT i, hash(i, '${eventType}') AS h1, ${NOW - days * DAY} + (i * ${days * DAY} // ${rows}) + 20 * ${DAY} AS feedback_at
          FROM range(${rows}) AS t(i)
        )
        SELECT '${eventType[0]}' || i AS feedback_id, ${idColumn === 'order_id' ? `'o' || i` : 'NULL'} AS order_id, ${statusColumns},
          NULL AS event_key, NULL AS review_outcome, feedback_at, 1 AS revision, feedback_at AS changed_at,
          '${MERCHANT}' AS merchant_id, strftime(make_timestamp(feedback_at * 1000), '%Y-%m-%d') AS day
        FROM base WHERE ${eventType === 'order' ? 'h1 % 1000 < 4' : 'h1 % 100 < 1'} AND feedback_at < ${NOW}
      ) TO '${join(dir, 'feedback')}' (FORMAT parquet, PARTITION_BY (kind, merchant_id, day), APPEND, FILENAME_PATTERN 'part-{uuid}')`);
  }
  console.log(`  generated in ${seconds(started)} s under ${dir}`);
}

/** DuckDB bounded like a real worker: a memory limit, a directory to spill to, the machine's cores. */
async function openBoundedLake() {
  const connection = await openLocalLake(dir);
  const spill = join(tmpdir(), 'lake-bench-spill');
  mkdirSync(spill, { recursive: true });
  await connection.run(`SET memory_limit = '${MEMORY_LIMIT}'`);
  await connection.run(`SET temp_directory = '${spill}'`);
  await connection.run(`SET threads = ${availableParallelism()}`);
  return connection;
}

const reopened = await openBoundedLake();
const run = duckDbRunner(reopened);
const [{ parts }] = (await run('event_count', {
  merchant_id: MERCHANT,
  kind: 'order',
  from_day: '2000-01-01',
  to_day: '2100-01-01',
})) as [{ parts: number }];
console.log(`\nthe lake: ${Number(parts).toLocaleString('en')} orders of ${MERCHANT}\n`);
console.log('step                  type      wall s   rows read (window)   rows fed to the fit   peak MB');
const work = join(tmpdir(), 'lake-bench-sets');
mkdirSync(work, { recursive: true });
for (const eventType of EVENT_TYPES) {
  await generate(eventType);
  const run = duckDbRunner(await openBoundedLake());
  const started = performance.now();
  const set = await readTrainingSetFor(run, { merchantId: MERCHANT, eventType, now: NOW });
  const queried = seconds(started);
  // The trade-off histogram is one of the set's queries: timed again alone to show its share.
  const histogramStarted = performance.now();
  const { cells } = await readTradeoffHistogram(run, {
    merchantId: MERCHANT,
    eventType,
    now: NOW,
    latestEventTime: set.latestEventTime,
  });
  const histogramSeconds = seconds(histogramStarted);
  const file = join(work, `${eventType}.json`);
  writeFileSync(file, JSON.stringify(set));
  const read = set.events.reduce((n, e) => n + (e.eventType === eventType ? e.parts.length : 0), 0);
  console.log(
    `training set query    ${eventType.padEnd(8)}  ${queried.padStart(6)}   ${set.partsInWindow.toLocaleString('en').padStart(18)}   ${read.toLocaleString('en').padStart(19)}   ${String(peakMb()).padStart(7)}`,
  );
  console.log(
    `  of it, the trade-off ${eventType.padEnd(8)}  ${histogramSeconds.padStart(6)}   ${'90 days'.padStart(18)}   ${`${cells.length} cells`.padStart(19)}   ${String(peakMb()).padStart(7)}`,
  );
  const fit = JSON.parse(
    execFileSync(process.execPath, ['scripts/bench-lake-fit.ts', file, MERCHANT, eventType], {
      encoding: 'utf8',
    }),
  ) as { ms: number; rowsFed: number; positives: number; peakMb: number; outcome: string };
  console.log(
    `fit (own process)     ${eventType.padEnd(8)}  ${(fit.ms / 1000).toFixed(1).padStart(6)}   ${'-'.padStart(18)}   ${fit.rowsFed.toLocaleString('en').padStart(19)}   ${String(fit.peakMb).padStart(7)}   ${fit.positives.toLocaleString('en')} positive; ${fit.outcome}`,
  );
  rmSync(file);
}
console.log(
  `\ntarget: the fit under 2,048 MB and 300 s for every type (peak of the query process: ${peakMb()} MB)`,
);
