/**
 * `npm run eval -- --pool .eval/sweep-20261121.json .eval/sweep-7.json .eval/sweep-42.json`: several
 * seeds' sweeps (`npm run eval -- --sweep`) as one, each point's counts added over the seeds, and the
 * worst case across the pooled points: per pattern the smallest caught share, per event type the
 * largest shares of good customers declined and reviewed, each with its counts (eval/README.md).
 */
import { readFile } from 'node:fs/promises';
import { printFigures, printWorstCase } from '../eval/sweep-report.ts';
import { poolSweeps, readSweepFile, worstCase } from '../eval/worst-case.ts';

const files = process.argv.slice(process.argv.indexOf('--pool') + 1).filter((a) => !a.startsWith('--'));
if (files.length === 0) throw new Error('usage: npm run eval -- --pool <sweep json> [<sweep json> ...]');
const read = await Promise.all(files.map(async (file) => readSweepFile(await readFile(file, 'utf8'))));
const sweeps = read.map((r) => r.sweep);
const seeds = sweeps.map((s) => s.seed);
if (new Set(seeds).size < seeds.length)
  console.log(`The same seed more than once (${seeds.join(', ')}): its traffic counts twice.`);
const unsplit = files.filter((_, i) => read[i]!.unsplit);
if (unsplit.length > 0)
  console.log(
    `Written before positives were split by their evidence (${unsplit.join(', ')}): their positives count as decided once it was in.`,
  );
console.log(`Pooled over seeds ${sweeps.map((s) => s.seed).join(', ')} (${files.join(', ')}):`);
const pooled = poolSweeps(sweeps);
const nominal = pooled.find((p) => p.point === 'nominal');
if (nominal) {
  console.log('\n[nominal] pooled:');
  printFigures(nominal);
}
printWorstCase(pooled, worstCase(pooled));
