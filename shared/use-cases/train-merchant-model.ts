import type { EventType } from '../contract/endpoints.ts';
import type { LakeQueryRunner } from '../lake/lake-queries.ts';
import { readTrainingSet, type TrainingSet } from '../lake/training-set.ts';
import { classifyEvents } from '../learning/labels.ts';
import { withPromoted } from '../learning/model-pointers.ts';
import { keepSampledNegatives } from '../learning/sampling.ts';
import { type ModelVersion, TrainingError, trainModelVersion } from '../learning/train.ts';
import { modelFor } from '../scoring/models.ts';
import {
  getModelPointers,
  ModelVersionExistsError,
  saveModelPointers,
  saveModelVersion,
} from '../store/model-versions.ts';
import { saveOverviewRollups } from '../store/overview-rollups.ts';
import { saveTradeoffHistogram } from '../store/tradeoff-histograms.ts';
import { getWorkflow } from '../store/workflows.ts';

/**
 * One training run for a merchant and event type, in the two steps of an item of the nightly state
 * machine (lib/learning-stack.ts): read the training set from the lake (readTrainingSetFor: a query,
 * bounded in rows whatever the merchant's size), then fit on it (trainMerchantModel: label, keep the
 * sampled negatives, train and evaluate against the active model, keep the version, promote it when
 * asked and the promotion rule holds). It first keeps the set's trade-off histogram for the console.
 * A failure (no labels, one class only) throws before any version is written, so the active model
 * never changes on a failed run.
 */
export interface TrainingRun {
  version: ModelVersion;
  promoted: boolean;
}

/** Every positive plus negatives sampled to about this many rows. */
export const DEFAULT_MAX_TRAINING_ROWS = 100_000;
/** Rows come from the events of the last 180 days: older ones tell little about today's abuse. */
const TRAINING_WINDOW_DAYS = 180;

export function readTrainingSetFor(
  run: LakeQueryRunner,
  input: { merchantId: string; eventType: EventType; now: number; maxRows?: number },
): Promise<TrainingSet> {
  return readTrainingSet(run, {
    ...input,
    windowDays: TRAINING_WINDOW_DAYS,
    maxRows: input.maxRows ?? DEFAULT_MAX_TRAINING_ROWS,
  });
}

export async function trainMerchantModel(input: {
  merchantId: string;
  eventType: EventType;
  promote: boolean;
  now: number;
  set: TrainingSet;
}): Promise<TrainingRun> {
  const { merchantId, eventType, set } = input;
  // The console's trade-off report and overview read what the item counted, whether it trains or not.
  await Promise.all([
    saveTradeoffHistogram(merchantId, eventType, set.tradeoffs),
    saveOverviewRollups(merchantId, eventType, set.overview),
  ]);
  if (set.latestEventTime === undefined)
    throw new TrainingError('no_labels', `merchant ${merchantId} has sent no events to learn from`);
  const { labeled, censored } = classifyEvents(eventType, set.events, set.feedback, set.latestEventTime);
  const rows = keepSampledNegatives(labeled, set.negativeSamplingRate, `${merchantId}|${eventType}`);
  const [pointers, { workflow }] = await Promise.all([
    getModelPointers(merchantId, eventType),
    getWorkflow(merchantId, eventType),
  ]);
  const version = trainModelVersion(rows, {
    merchantId,
    eventType,
    defaultModel: modelFor(eventType),
    activeModel: pointers.active ?? modelFor(eventType),
    workflow,
    now: set.latestEventTime,
    negativeSamplingRate: set.negativeSamplingRate,
    censored,
  });
  try {
    await saveModelVersion(version);
  } catch (error) {
    // Same rows, same version: training again without new feedback is a no-op, not a failure.
    if (!(error instanceof ModelVersionExistsError)) throw error;
  }
  const promote =
    input.promote && version.evaluation.promotion.promotable && pointers.active?.version !== version.version;
  if (promote)
    await saveModelPointers(merchantId, eventType, pointers, withPromoted(pointers, version), input.now);
  return { version, promoted: promote };
}
