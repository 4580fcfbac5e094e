import type { EventType } from '../contract/endpoints.ts';
import { tradeoffCurves } from '../learning/tradeoffs.ts';
import { decisionTypeOf } from '../scoring/workflow.ts';
import { getDecisionSettings, saveGuard } from '../store/decision-settings.ts';
import { getModelVersion } from '../store/model-versions.ts';
import { getWorkflow } from '../store/workflows.ts';
import {
  computeGuard,
  guardExplanation,
  holdoutTradeoffRows,
  liveModelOf,
  loadLabeledDecisions,
} from './decision-economics.ts';

/**
 * GET /v1/tradeoffs/{type}: for every threshold 0-100, what it would catch, cost good customers and
 * cost the merchant, over the last 90 days of labeled decisions (scored by the live model) and,
 * for a trained live version, over its holdout, with the live per-event thresholds marked. Computing
 * it measures the good-customer guard again, which is kept for the decisions that follow.
 */
export async function tradeoffReport(merchantId: string, eventType: EventType, now: number) {
  const [record, model, { workflow }] = await Promise.all([
    getDecisionSettings(merchantId, eventType),
    liveModelOf(merchantId, eventType),
    getWorkflow(merchantId, eventType),
  ]);
  const { settings } = record;
  const labeled = await loadLabeledDecisions(merchantId, eventType, model, now);
  const guard = await computeGuard(merchantId, eventType, settings, model, async () => labeled, now);
  await saveGuard(merchantId, eventType, guard);
  const floors = { declineAt: guard.declineAt, reviewAt: guard.reviewAt };
  const canReview = decisionTypeOf(workflow).includes('REVIEW');
  const version = model.thresholds ? await getModelVersion(merchantId, eventType, model.version) : undefined;
  const kept = version?.evaluation.holdoutRows;
  return {
    eventType,
    since: new Date(labeled.since).toISOString(),
    modelVersion: model.version,
    settings,
    guard: { ...guard, explanation: guardExplanation(guard) },
    canReview,
    labeled: {
      ...tradeoffCurves(eventType, labeled.rows, settings, floors, canReview),
      excluded: labeled.excluded,
      truncated: labeled.truncated,
    },
    ...(version && kept
      ? {
          holdout: {
            ...tradeoffCurves(eventType, holdoutTradeoffRows(kept), settings, floors, canReview),
            from: version.evaluation.holdout.from,
          },
        }
      : {}),
  };
}
