/**
 * The fit step of `npm run bench -- lake`, in a process of its own as in its Lambda function: reads
 * the training set the query step left (a file here, the work bucket in AWS), labels it, keeps the
 * sampled negatives and trains and evaluates a version (shared/learning/). Saving the version and
 * refreshing the guard are a few table writes, left out. Prints one JSON line: wall time, rows fed,
 * peak memory (VmHWM).
 */
import { readFileSync } from 'node:fs';
import type { EventType } from '../shared/contract/endpoints.ts';
import type { TrainingSet } from '../shared/lake/training-set.ts';
import { classifyEvents } from '../shared/learning/labels.ts';
import { keepSampledNegatives } from '../shared/learning/sampling.ts';
import { trainModelVersion } from '../shared/learning/train.ts';
import { modelFor } from '../shared/scoring/models.ts';
import { DEFAULT_WORKFLOWS } from '../shared/scoring/workflow.ts';

const [file, merchantId, eventType] = process.argv.slice(2) as [string, string, EventType];
const started = performance.now();
const set = JSON.parse(readFileSync(file, 'utf8')) as TrainingSet;
const { labeled, censored } = classifyEvents(eventType, set.events, set.feedback, set.latestEventTime!);
const rows = keepSampledNegatives(labeled, set.negativeSamplingRate, `${merchantId}|${eventType}`);
let outcome: string;
try {
  const version = trainModelVersion(rows, {
    merchantId,
    eventType,
    defaultModel: modelFor(eventType),
    activeModel: modelFor(eventType),
    workflow: DEFAULT_WORKFLOWS[eventType],
    now: set.latestEventTime!,
    negativeSamplingRate: set.negativeSamplingRate,
    censored,
  });
  outcome = `trained, holdout ROC AUC ${version.evaluation.candidate.rocAuc ?? '-'}`;
} catch (error) {
  outcome = `not trained: ${(error as Error).message}`;
}
const peak = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
console.log(
  JSON.stringify({
    ms: Math.round(performance.now() - started),
    rowsFed: rows.length,
    positives: rows.filter((r) => r.label === 1).length,
    peakMb: Math.round(Number(peak) / 1024),
    outcome,
  }),
);
