import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { EventType } from './contract/endpoints.ts';
import { metrics } from './observability.ts';
import { importedEvent } from './request-scope.ts';

/** One metric per decision, by event type and outcome, for the dashboard. */
export function recordDecisionMetric(eventType: EventType, outcome: string): void {
  // Imported history is not live traffic: the dashboard counts what the API decides now.
  if (importedEvent()) return;
  // Flushed at once, like a single metric, but from the shared instance: `singleMetric()` built a
  // new Metrics (re-reading the environment, with its own Console) for every decision.
  metrics.addDimensions({ eventType, outcome });
  metrics.addMetric('Decisions', MetricUnit.Count, 1);
  metrics.publishStoredMetrics();
}
