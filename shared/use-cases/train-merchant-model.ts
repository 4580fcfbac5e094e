import type { EventType } from '../contract/endpoints.ts';
import { classifyEvents } from '../learning/labels.ts';
import { withPromoted } from '../learning/model-pointers.ts';
import { sampleNegatives } from '../learning/sampling.ts';
import { type ModelVersion, TrainingError, trainModelVersion } from '../learning/train.ts';
import { modelFor } from '../scoring/models.ts';
import {
  getModelPointers,
  ModelVersionExistsError,
  saveModelPointers,
  saveModelVersion,
} from '../store/model-versions.ts';
import { loadTrainingData } from '../store/training-rows.ts';
import { getWorkflow } from '../store/workflows.ts';

/**
 * One training run for a merchant and event type: read the rows (events of the last 180 days before
 * `now`, the clock), label them, sample negatives (every positive kept), train
 * and evaluate against the active model, keep the version, and promote it when asked and the
 * promotion rule holds. A failure (no labels, one class only) throws before anything is written,
 * so the active model never changes on a failed run.
 */
export interface TrainingRun {
  version: ModelVersion;
  promoted: boolean;
}

/** Bounded like the nightly job: every positive plus sampled negatives up to this many rows. */
export const DEFAULT_MAX_TRAINING_ROWS = 100_000;
const MAX_EVENTS_PER_TYPE = 500_000;
/** Rows come from the events of the last 180 days: older ones tell little about today's abuse. */
const TRAINING_WINDOW_DAYS = 180;
const DAY_MS = 86_400_000;

export async function trainMerchantModel(input: {
  merchantId: string;
  eventType: EventType;
  promote: boolean;
  maxRows?: number;
  now: number;
}): Promise<TrainingRun> {
  const { merchantId, eventType } = input;
  const since = input.now - TRAINING_WINDOW_DAYS * DAY_MS;
  const data = await loadTrainingData(merchantId, eventType, MAX_EVENTS_PER_TYPE, since);
  if (data.latestEventTime === undefined)
    throw new TrainingError('no_labels', `merchant ${merchantId} has sent no events to learn from`);
  const { labeled, censored } = classifyEvents(eventType, data.events, data.feedback, data.latestEventTime);
  const sample = sampleNegatives(
    labeled,
    input.maxRows ?? DEFAULT_MAX_TRAINING_ROWS,
    `${merchantId}|${eventType}`,
  );
  const [pointers, { workflow }] = await Promise.all([
    getModelPointers(merchantId, eventType),
    getWorkflow(merchantId, eventType),
  ]);
  const version = trainModelVersion(sample.rows, {
    merchantId,
    eventType,
    defaultModel: modelFor(eventType),
    activeModel: pointers.active ?? modelFor(eventType),
    workflow,
    now: data.latestEventTime,
    negativeSamplingRate: sample.negativeSamplingRate,
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
