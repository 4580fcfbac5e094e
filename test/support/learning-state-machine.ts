import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { AttributeType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Stream } from 'aws-cdk-lib/aws-kinesis';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { StateMachine } from 'aws-local-stepfunctions';
import { STAGES } from '../../lib/config.ts';
import { JobStarts } from '../../lib/job-starts.ts';
import { LEARNING_STATES, LearningJob } from '../../lib/learning-stack.ts';
import type { duckDbRunner, LakeQueryRunner } from '../../shared/lake/lake-queries.ts';
import type { TrainingSet } from '../../shared/lake/training-set.ts';
import {
  fitLearningItem,
  type LearningItem,
  type LearningItemResult,
  type LearningRunOutput,
  learningItems,
  learningRunOutput,
} from '../../shared/use-cases/learning-run.ts';
import { readTrainingSetFor } from '../../shared/use-cases/train-merchant-model.ts';

type Json = Record<string, unknown>;

/** The lake a synthesized job is given: buckets of its own stack, named placeholders. */
export const placeholderLake = (stack: Stack) => ({
  bucket: new Bucket(stack, 'Lake'),
  workBucket: new Bucket(stack, 'Work'),
  database: 'lake',
  workGroup: 'wg',
});

/** The jobs' reader of a placeholder stream, which the export and backtest jobs add their rules to. */
export const jobStarts = (stack: Stack, alarmTopic: Topic) =>
  new JobStarts(stack, 'JobStarts', {
    config: STAGES.sandbox,
    changes: new Stream(stack, 'Changes'),
    alarmTopic,
  });

/**
 * The learning state machine as `cdk synth` writes it (lib/learning-stack.ts, no bundling), its
 * CloudFormation references replaced by placeholder ARNs: what asl-validator checks and what
 * aws-local-stepfunctions runs.
 */
export function synthesizedLearningDefinition(): Json {
  return synthesizedDefinition('Learning', (stack, table) => {
    new LearningJob(stack, 'Learning', {
      config: STAGES.sandbox,
      table,
      lake: placeholderLake(stack),
      alarmTopic: new Topic(stack, 'Alarms'),
    });
  });
}

/** The one state machine `build` makes in a stack of its own (beside a table), as synthesized. */
export function synthesizedDefinition(name: string, build: (stack: Stack, table: Table) => void): Json {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, name);
  build(stack, new Table(stack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } }));
  const template = app.synth().getStackArtifact(stack.artifactId).template as {
    Resources: Record<string, { Type: string; Properties: Json }>;
  };
  const machine = Object.values(template.Resources).find(
    (r) => r.Type === 'AWS::StepFunctions::StateMachine',
  )!;
  const joined = (machine.Properties.DefinitionString as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  // References become placeholders of their kind: the partition, a bucket name, a function's ARN.
  const placeholder = (part: unknown) => {
    const text = JSON.stringify(part);
    if (text === '{"Ref":"AWS::Partition"}') return 'aws';
    if (text.includes('ExportsOutputRefWork') || text.includes('ExportsOutputRefLake'))
      return 'placeholder-bucket';
    return 'arn:aws:lambda:us-east-1:123456789012:function:placeholder';
  };
  const text = joined.map((part) => (typeof part === 'string' ? part : placeholder(part))).join('');
  return JSON.parse(text) as Json;
}

/**
 * What differs locally: aws-local-stepfunctions runs a Distributed Map as an inline one, so the
 * items come in the state's input instead of an S3 object, and the results stay in the output
 * instead of going to result files (the Summarize step reads them where the result writer's
 * details would be). Every other state, retry and catch runs as synthesized.
 */
function asLocalRun(definition: Json): Json {
  const copy = structuredClone(definition) as { States: Record<string, Json> };
  const map = copy.States[LEARNING_STATES.eachItem]!;
  for (const field of ['ItemReader', 'ResultWriter', 'ToleratedFailurePercentage', 'MaxConcurrency', 'Label'])
    delete map[field];
  map.ItemsPath = '$.items';
  map.ResultSelector = { 'ResultWriterDetails.$': '$' };
  (map.ItemProcessor as Json).ProcessorConfig = { Mode: 'INLINE' };
  return copy;
}

export interface LocalLearningRun {
  counts: LearningRunOutput;
  results: (LearningItemResult | (LearningItem & { failed: true }))[];
  /** How many times each step ran, by `merchantId/eventType`. */
  attempts: Record<string, number>;
}

/**
 * Runs the synthesized learning state machine with local handlers: the lake queries on DuckDB
 * (where Athena runs them in AWS), the training set through a file (the work bucket in AWS), the
 * fit and the summary as in AWS. `fail` makes an item's fit throw, to show what a failure does.
 */
export async function runLearningLocally(
  request: { merchantId?: string; eventType?: LearningItem['eventType']; promote?: boolean },
  options: {
    lake: ReturnType<typeof duckDbRunner> | LakeQueryRunner;
    now?: number;
    fail?: (item: LearningItem) => boolean;
  },
): Promise<LocalLearningRun> {
  const work = mkdtempSync(join(tmpdir(), 'learning-run-'));
  const attempts: Record<string, number> = {};
  const count = (step: string, item: LearningItem) => {
    const key = `${step}:${item.merchantId}/${item.eventType}`;
    attempts[key] = (attempts[key] ?? 0) + 1;
  };
  let results: LocalLearningRun['results'] = [];
  const machine = new StateMachine(asLocalRun(synthesizedLearningDefinition()) as never, {
    validationOptions: { checkArn: false, checkPaths: false },
  });
  const execution = machine.run(request, {
    context: {
      Execution: { Name: `local-${Date.now()}`, Input: request, StartTime: new Date().toISOString() },
    },
    overrides: {
      taskResourceLocalHandlers: {
        [LEARNING_STATES.listItems]: async (input) => {
          const { request: wanted } = input as unknown as { request: Parameters<typeof learningItems>[0] };
          return { items: await learningItems(wanted), now: options.now ?? Date.now() } as never;
        },
        [LEARNING_STATES.trainingSet]: async (input) => {
          const { item, now } = input as unknown as { item: LearningItem; now: number };
          count('set', item);
          const set = await readTrainingSetFor(options.lake, { ...item, now });
          const key = join(work, `${item.merchantId}-${item.eventType}.json`);
          writeFileSync(key, JSON.stringify(set));
          return { bucket: 'local', key };
        },
        [LEARNING_STATES.fit]: async (input) => {
          const { item, now, set } = input as unknown as {
            item: LearningItem;
            now: number;
            set: { key: string };
          };
          count('fit', item);
          if (options.fail?.(item)) throw new Error(`fit failed for ${item.merchantId}/${item.eventType}`);
          const read = JSON.parse(readFileSync(set.key, 'utf8')) as TrainingSet;
          return (await fitLearningItem(item, read, now)) as never;
        },
        [LEARNING_STATES.summarize]: (input) => {
          results = (input as unknown as { resultWriter: LocalLearningRun['results'] }).resultWriter;
          return learningRunOutput(results) as never;
        },
      },
      retryIntervalOverrides: { [LEARNING_STATES.trainingSet]: 0, [LEARNING_STATES.fit]: 0 },
    },
  });
  const counts = (await execution.result) as LocalLearningRun['counts'];
  return { counts, results, attempts };
}
