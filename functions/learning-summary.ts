import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { z } from 'zod';
import { getJson } from '../shared/lake/s3-json.ts';
import { logger, metrics } from '../shared/observability.ts';
import { type LearningItemResult, learningRunOutput } from '../shared/use-cases/learning-run.ts';

/**
 * The learning run's last step: counts the items' outcomes from the Distributed Map's result files
 * and publishes them; a failed item (its retries spent, or caught as failed) raises the alarm.
 */
const input = z.object({ resultWriter: z.object({ Bucket: z.string(), Key: z.string() }) });
interface Manifest {
  DestinationBucket: string;
  ResultFiles: Record<string, { Key: string }[]>;
}
interface ItemExecution {
  Output?: string;
}

export async function handler(event: unknown) {
  const { resultWriter } = input.parse(event);
  const manifest = await getJson<Manifest>({ bucket: resultWriter.Bucket, key: resultWriter.Key });
  const results: (LearningItemResult | { failed: true })[] = [];
  for (const [status, files] of Object.entries(manifest.ResultFiles))
    for (const file of files) {
      const executions = await getJson<ItemExecution[]>({
        bucket: manifest.DestinationBucket,
        key: file.Key,
      });
      for (const execution of executions) {
        const output = status === 'SUCCEEDED' && execution.Output ? JSON.parse(execution.Output) : undefined;
        results.push(output && !('failed' in output) ? (output as LearningItemResult) : { failed: true });
      }
    }
  const output = learningRunOutput(results);
  metrics.addMetric('LearningItemsTrained', MetricUnit.Count, output.trained);
  metrics.addMetric('LearningItemsFailed', MetricUnit.Count, output.failed);
  metrics.publishStoredMetrics();
  const { results: _listed, ...counts } = output;
  logger.info('learning run', counts);
  return output;
}
