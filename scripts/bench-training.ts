/**
 * Training time for 100,000 decided orders (part of `npm run bench`): label rules over the events and
 * their disputes, then training and holdout evaluation (two Newton fits: the older 80 % and all rows),
 * on the default order model's 13 signals. The floor beside it is one pass computing the penalised
 * log-likelihood over the same rows, the least any optimiser must do per iteration.
 * A benchmark to read, never a timed test: the figure depends on the machine.
 */
import { SeededRandom } from '../eval/random.ts';
import { type DecidedEventRow, type FeedbackRow, labelEvents } from '../shared/learning/labels.ts';
import { objectiveAt, sigmoid } from '../shared/learning/logistic.ts';
import { trainModelVersion } from '../shared/learning/train.ts';
import { modelFor } from '../shared/scoring/models.ts';
import { DEFAULT_WORKFLOWS } from '../shared/scoring/workflow.ts';

const EVENTS = Number(process.env.BENCH_TRAINING_EVENTS ?? 100_000);
const DAY_MS = 86_400_000;
const model = modelFor('order');
const signals = Object.keys(model.weights);
const random = new SeededRandom(20261122);
const start = Date.UTC(2026, 0, 1);
const now = start + 365 * DAY_MS;

const events: DecidedEventRow[] = [];
const feedback: FeedbackRow[] = [];
for (let i = 0; i < EVENTS; i++) {
  // Mostly zeros, as real signal values are; a few counts and flags.
  const values = Object.fromEntries(signals.map((s) => [s, random.chance(0.1) ? random.int(1, 3) : 0]));
  const logOdds =
    model.bias + signals.reduce((sum, s) => sum + (model.weights[s] ?? 0) * (values[s] ?? 0), 0);
  const at = start + Math.floor((i * 300 * DAY_MS) / EVENTS);
  events.push({
    eventType: 'order',
    eventKey: `M#bench#ORDER#o${i}`,
    eventId: `o${i}`,
    at,
    identities: [`email#e${i % 50_000}`],
    parts: [{ signals: values, abuseScore: 0, modelVersion: model.version }],
  });
  if (random.chance(sigmoid(logOdds)))
    feedback.push({ kind: 'dispute', orderId: `o${i}`, status: 'LOST', at });
}

const labelStart = performance.now();
const rows = labelEvents('order', events, feedback, now);
const labelMs = performance.now() - labelStart;

const trainStart = performance.now();
const version = trainModelVersion(rows, {
  merchantId: 'bench',
  eventType: 'order',
  defaultModel: model,
  activeModel: model,
  workflow: DEFAULT_WORKFLOWS.order,
  now,
});
const trainMs = performance.now() - trainStart;

const weighted = rows.map((r) => ({
  x: [1, ...signals.map((s) => r.signals[s] ?? 0)],
  y: r.label,
  w: r.weight,
}));
const prior = {
  mean: [model.bias, ...signals.map((s) => model.weights[s] ?? 0)],
  precision: weighted[0]!.x.map(() => 1),
};
const floorStart = performance.now();
objectiveAt(weighted, prior, prior.mean);
const floorMs = performance.now() - floorStart;

console.log('');
console.log(
  `training, ${EVENTS} decided orders, ${signals.length} signals, ${version.trainedOn.positives} positives`,
);
console.log(
  `label rules ${labelMs.toFixed(0)} ms; train + evaluate (two rolling folds, each fitted on older rows, evaluate, refit on 100 %) ${trainMs.toFixed(0)} ms`,
);
console.log(`floor: one log-likelihood pass over the rows ${floorMs.toFixed(1)} ms`);
console.log(
  `holdout ROC AUC ${version.evaluation.candidate.rocAuc}, calibration error ${version.evaluation.candidate.calibrationError} points`,
);
