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
 * cost the merchant, over the whole 90 days of settled labels (the histogram the nightly item kept,
 * each event at the score it was decided with) and, for a trained live version, over its holdout,
 * with the live per-event thresholds marked. The settings in force price it when it is read, so a
 * settings change shows at once; the guard is measured again on the same histogram and kept. A few
 * items read, whatever the merchant's history.
 */
export async function tradeoffReport(merchantId: string, eventType: EventType, now: number) {
  const [record, model, { workflow }, labeled] = await Promise.all([
    getDecisionSettings(merchantId, eventType),
    liveModelOf(merchantId, eventType),
    getWorkflow(merchantId, eventType),
    loadLabeledDecisions(merchantId, eventType),
  ]);
  const { settings } = record;
  const guard = await computeGuard(merchantId, eventType, settings, model, async () => labeled, now);
  await saveGuard(merchantId, eventType, guard);
  const floors = { declineAt: guard.declineAt, reviewAt: guard.reviewAt };
  const canReview = decisionTypeOf(workflow).includes('REVIEW');
  const version = model.thresholds ? await getModelVersion(merchantId, eventType, model.version) : undefined;
  const kept = version?.evaluation.holdoutRows;
  const { rows, excluded, ...computed } = labeled;
  return {
    eventType,
    modelVersion: model.version,
    settings,
    guard: { ...guard, explanation: guardExplanation(guard) },
    canReview,
    labeled: { ...computed, ...tradeoffCurves(eventType, rows, settings, floors, canReview), excluded },
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
