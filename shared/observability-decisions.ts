import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics } from './observability.ts';
import type { EventType } from './scoring/workflow.ts';

/** One metric per decision, by event type and outcome, for the dashboard. */
export function recordDecisionMetric(eventType: EventType, outcome: string): void {
  const metric = metrics.singleMetric();
  metric.addDimensions({ eventType, outcome });
  metric.addMetric('Decisions', MetricUnit.Count, 1);
}
