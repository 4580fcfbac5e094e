/**
 * `npm run eval -- --sweep [--points name,name]`: the eval's patterns and honest look-alikes under
 * the generator parameters of eval/sweep-points.ts, each point one timeline for a fresh merchant
 * (created at its first event) decided by the default model, as the eval's "before" run: the analyst
 * works the review queue and the guard is measured weekly, no retraining. Prints each point's counts
 * and figures, the nominal point in full, the worst case across points, and where the eval's
 * invariant fails; writes `.eval/sweep-<seed>.json` for `npm run eval -- --pool` (eval/README.md).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { installSimulatedClock } from '../eval/clock.ts';
import { LEGITIMATE } from '../eval/patterns.ts';
import { scheduleTraffic } from '../eval/schedule.ts';
import { SWEEP_POINTS } from '../eval/sweep-points.ts';
import { printPoint, printWorstCase } from '../eval/sweep-report.ts';
import {
  formatShare,
  invariantBreaks,
  type SweepSummary,
  summarizePoint,
  withEvidence,
  worstCase,
} from '../eval/worst-case.ts';
import { startInMemoryApi } from '../local/in-memory-api.ts';

const seed = Number(process.env.EVAL_SEED ?? 20261121);
const only = process.argv[process.argv.indexOf('--points') + 1];
const points = process.argv.includes('--points')
  ? SWEEP_POINTS.filter((p) => only?.split(',').includes(p.name))
  : SWEEP_POINTS;
const { baseUrl, stop } = await startInMemoryApi();
const { EVENT_TYPES } = await import('../shared/contract/endpoints.ts');
const { timelinePlayer } = await import('../eval/timeline.ts');
const clock = installSimulatedClock();
const end = clock.real() - 60_000;
const player = timelinePlayer(baseUrl, clock);
const started = clock.real();
const summary: SweepSummary = { seed, points: [] };
const file = `.eval/sweep-${seed}.json`;
const failed: string[] = [];

console.log(`seed ${seed}: ${points.length} sweep points, one timeline each (default model)\n`);
try {
  for (const point of points) {
    const began = clock.real();
    const requestsBefore = player.requests();
    const steps = scheduleTraffic(seed, end, point.params);
    const run = await player
      .play(steps, { retrain: false, end, bornWithTraffic: true })
      .catch((error: unknown) => {
        // A point that cannot be played is reported, and the others still run.
        failed.push(`${point.name}: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      });
    if (!run) {
      console.log(`[${point.name}] NOT PLAYED: ${failed.at(-1)}\n`);
      continue;
    }
    const window = point.measured;
    const events = window
      ? run.events.filter((e) => e.at >= end - window.from && e.at < end - window.until)
      : run.events;
    const figures = summarizePoint(point.name, events, LEGITIMATE, EVENT_TYPES);
    const entry = {
      ...figures,
      description: point.description,
      requests: player.requests() - requestsBefore,
      seconds: Math.round((clock.real() - began) / 1000),
    };
    summary.points.push(entry);
    printPoint(entry, events.length);
    // After every point: a sweep cut short still leaves what it measured.
    await mkdir('.eval', { recursive: true });
    await writeFile(file, `${JSON.stringify(summary, null, 2)}\n`);
  }
} finally {
  clock.set(undefined);
  await stop();
}

printWorstCase(summary.points, worstCase(summary.points));
const broken = summary.points.flatMap((p) => invariantBreaks(p).map((row) => ({ point: p.point, row })));
console.log(
  `\nInvariant in every point (ROC AUC >= 0.95 caught >= 90 %, once the evidence was in): ${
    broken.length === 0
      ? 'holds'
      : `BROKEN in ${broken.map(({ point, row }) => `${point}: ${row.pattern} (AUC ${row.aucWithEvidence.toFixed(3)}, caught ${formatShare(withEvidence(row))})`).join('; ')}`
  }`,
);
console.log(
  `\n${summary.points.reduce((n, p) => n + p.requests, 0)} requests in ${((clock.real() - started) / 60_000).toFixed(1)} min; figures in ${file} (npm run eval -- --pool ${file} ...)`,
);
if (failed.length > 0) console.log(`\nPoints not played: ${failed.join('; ')}`);
if (broken.length > 0 || failed.length > 0) process.exitCode = 1;
