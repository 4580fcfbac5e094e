import type { BacktestEvent } from '../scoring/backtest.ts';
import { type ScoringModel, scoreWithModel } from '../scoring/model.ts';
import { thresholdsOf } from '../scoring/models.ts';
import { matchWorkflow, type RunnableWorkflow } from '../scoring/workflow-engine.ts';

/**
 * Shadow against active on recent traffic, and how often the two agree. A decision made while the
 * shadow ran carries the shadow's own stored score and outcome; for older decisions both models
 * score the signal values stored with the decision and the merchant's workflow decides on each.
 * Pure.
 */
export interface ModelComparison {
  activeVersion: string;
  shadowVersion: string;
  decisions: number;
  /** Decisions whose shadow outcome was stored live (the rest were re-scored from stored signals). */
  storedShadowDecisions: number;
  /** Decisions with the same outcome under both models. */
  agreeing: number;
  /** agreeing / decisions (1 when there are none). */
  agreement: number;
  /** Outcome changes by "ACTIVE -> SHADOW". */
  changes: Record<string, number>;
  /** Mean absolute score difference, in points. */
  meanScoreDifference: number;
  examples: {
    eventId: string;
    createdAt: string;
    active: number;
    shadow: number;
    from: string;
    to: string;
  }[];
}

export function compareModels(
  active: ScoringModel,
  shadow: ScoringModel,
  workflow: RunnableWorkflow,
  events: readonly BacktestEvent[],
  maxExamples = 10,
): ModelComparison {
  const report: ModelComparison = {
    activeVersion: active.version,
    shadowVersion: shadow.version,
    decisions: 0,
    storedShadowDecisions: 0,
    agreeing: 0,
    agreement: 1,
    changes: {},
    meanScoreDifference: 0,
    examples: [],
  };
  let difference = 0;
  for (const event of events) {
    for (const stored of event.decisions) {
      const signals = stored.signals ?? {};
      const decideWith = (model: ScoringModel) => {
        const { abuseScore } = scoreWithModel(model, signals);
        return {
          abuseScore,
          ...matchWorkflow(workflow, {
            abuseScore,
            thresholds: thresholdsOf(model, workflow.eventType),
            signals,
            fields: stored.fields ?? {},
          }),
        };
      };
      const storedLive =
        stored.shadow?.modelVersion === shadow.version && stored.modelVersion === active.version;
      const now = storedLive ? stored : decideWith(active);
      const then = storedLive && stored.shadow ? stored.shadow : decideWith(shadow);
      if (storedLive) report.storedShadowDecisions++;
      report.decisions++;
      difference += Math.abs(now.abuseScore - then.abuseScore);
      if (now.decision === then.decision) {
        report.agreeing++;
        continue;
      }
      const change = `${now.decision} -> ${then.decision}`;
      report.changes[change] = (report.changes[change] ?? 0) + 1;
      if (report.examples.length < maxExamples)
        report.examples.push({
          eventId: event.eventId,
          createdAt: event.createdAt,
          active: now.abuseScore,
          shadow: then.abuseScore,
          from: now.decision,
          to: then.decision,
        });
    }
  }
  if (report.decisions > 0) {
    report.agreement = Math.round((report.agreeing / report.decisions) * 1e4) / 1e4;
    report.meanScoreDifference = Math.round((difference / report.decisions) * 100) / 100;
  }
  return report;
}
