import { Duration, Lazy } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { EventBus, EventField, type IRuleTarget, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { LambdaFunction, SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IStream } from 'aws-cdk-lib/aws-kinesis';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { JOB_ITEM_ATTRIBUTES } from '../shared/store/job-items.ts';
import type { StageConfig } from './config.ts';
import { deadLetterQueue } from './dead-letter-queue.ts';
import { alarmAtOrAbove } from './monitoring.ts';

/** The source and detail type of the events the pipe puts on the jobs' bus: one per inserted item. */
export const JOB_ITEM_EVENT = { source: 'abuse-decision.table', detailType: 'Job item inserted' } as const;

/**
 * How long a rule's target keeps trying to start an execution before the event goes to the
 * dead-letter queue (and raises the alarm): a start fails on throttling or a missing permission,
 * and a job nobody has started within the hour is better looked at than retried all day.
 */
export const JOB_START_RETRY = { attempts: 10, maxEventAge: Duration.hours(1) } as const;

const NEW_IMAGE = '$.data.dynamodb.NewImage';
const { entity, merchantId, jobId } = JOB_ITEM_ATTRIBUTES;

/**
 * The detail of a job's event, built by the pipe from the table's change: what identifies the job
 * (its entity, merchant and id, strings) and the item's table keys (as DynamoDB types them), never
 * the item itself. An event holds at most 256 KB and a backtest item carries its candidate workflow
 * (up to a 256 KB request body); ids are at most 64 characters, so the detail stays well under 1 KB
 * whatever the item. Every path is on every job item (shared/store/job-items.ts): a missing one
 * would not give a valid event. A job that needs more reads the item by `keys`.
 */
export const JOB_DETAIL_TEMPLATE = JSON.stringify({
  entity: `<${NEW_IMAGE}.${entity}.S>`,
  merchantId: `<${NEW_IMAGE}.${merchantId}.S>`,
  jobId: `<${NEW_IMAGE}.${jobId}.S>`,
  keys: '<$.data.dynamodb.Keys>',
})
  // An object placeholder goes in unquoted: the pipe inserts it as JSON.
  .replace('"<$.data.dynamodb.Keys>"', '<$.data.dynamodb.Keys>');

/** A job's input field, read from its event's detail (`JOB_DETAIL_TEMPLATE`). */
export const jobDetail = {
  merchantId: EventField.fromPath('$.detail.merchantId'),
  jobId: EventField.fromPath('$.detail.jobId'),
  /** The item's table keys, DynamoDB-typed, for a step that reads the item (`Key.$`). */
  keys: EventField.fromPath('$.detail.keys'),
};

export interface JobStartsProps {
  config: StageConfig;
  /** The table's changes (Kinesis Data Streams for DynamoDB, lib/decision-table.ts). */
  changes: IStream;
  alarmTopic: ITopic;
}

/**
 * The lake jobs' one reader of the table's Kinesis stream (docs/operations.md, the stream's
 * readers): an EventBridge pipe, filtered to inserted items of the jobs' entities, puts each
 * item's ids and keys (`JOB_DETAIL_TEMPLATE`) on an event bus of the jobs' own; one rule per job
 * starts its state machine (or invokes its function). A shard serves five polling reads a second to
 * all its readers together, so a job adds a rule (`startOn`, `invokeOn`), never a reader. A start
 * that spends its retries is kept in a dead-letter queue, which raises an alarm; so does a put on
 * the bus that fails.
 */
export class JobStarts extends Construct {
  readonly bus: EventBus;
  readonly pipe: CfnPipe;
  readonly deadLetterQueue: Queue;
  private readonly entities: string[] = [];

  constructor(scope: Construct, id: string, props: JobStartsProps) {
    super(scope, id);
    const { config } = props;
    // Encrypted at rest with an AWS owned key, as EventBridge does by default (like the stream's
    // and the queues' AWS managed keys): it carries job ids and keys, no item.
    this.bus = new EventBus(this, 'Bus', {
      eventBusName: `abuse-decision-${config.stage}-jobs`,
      description: `Inserted lake job items of ${config.stage}, from the table's changes: one rule per job`,
    });
    this.deadLetterQueue = deadLetterQueue(this, "the jobs' rule targets");

    const role = new Role(this, 'PipeRole', {
      assumedBy: new ServicePrincipal('pipes.amazonaws.com'),
      description: "Reads the table changes stream and puts job ids on the jobs' bus, nothing else",
    });
    props.changes.grantRead(role);
    this.bus.grantPutEventsTo(role);
    const pipeName = `abuse-decision-${config.stage}-job-starts`;
    this.pipe = new CfnPipe(this, 'Pipe', {
      name: pipeName,
      description: "Puts each inserted lake job item's ids and keys on the jobs' bus",
      roleArn: role.roleArn,
      source: props.changes.streamArn,
      sourceParameters: {
        kinesisStreamParameters: { startingPosition: 'LATEST', batchSize: 1, maximumRetryAttempts: 10 },
        filterCriteria: {
          filters: [
            {
              // Resolved at synthesis, once every job has said its entity.
              pattern: Lazy.string({
                produce: () =>
                  JSON.stringify({
                    data: {
                      eventName: ['INSERT'],
                      dynamodb: { NewImage: { [entity]: { S: this.entities } } },
                    },
                  }),
              }),
            },
          ],
        },
      },
      target: this.bus.eventBusArn,
      targetParameters: {
        eventBridgeEventBusParameters: {
          source: JOB_ITEM_EVENT.source,
          detailType: JOB_ITEM_EVENT.detailType,
        },
        inputTemplate: JOB_DETAIL_TEMPLATE,
      },
    });
    this.node.addValidation({
      validate: () => (this.entities.length > 0 ? [] : ['no job starts on this reader']),
    });

    const period = Duration.minutes(5);
    alarmAtOrAbove(
      this,
      'DeadLettersAlarm',
      {
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Max' }),
        description:
          'A lake job was not started (its retries spent): the event is in the dead-letter queue, see docs/operations.md',
      },
      props.alarmTopic,
    );
    alarmAtOrAbove(
      this,
      'PutFailedAlarm',
      {
        metric: new Metric({
          namespace: 'AWS/EventBridge/Pipes',
          metricName: 'TargetStageFailed',
          dimensionsMap: { PipeName: pipeName },
          statistic: 'Sum',
          period,
        }),
        description: "The job starts pipe failed to put an item on the jobs' bus: a job may not have started",
      },
      props.alarmTopic,
    );
  }

  /**
   * One job: each inserted item of `entity` starts `stateMachine` with `input`, built from the
   * event's detail (`jobDetail`). The rule lives in the job's own construct; its role may start that
   * machine only.
   */
  startOn(
    scope: Construct,
    id: string,
    job: { entity: string; stateMachine: IStateMachine; input: Record<string, string> },
  ): Rule {
    return this.ruleFor(scope, id, job.entity, `Starts the job's state machine`, [
      new SfnStateMachine(job.stateMachine, {
        input: RuleTargetInput.fromObject(job.input),
        retryAttempts: JOB_START_RETRY.attempts,
        maxEventAge: JOB_START_RETRY.maxEventAge,
        deadLetterQueue: this.deadLetterQueue,
      }),
    ]);
  }

  /**
   * One job run by a function: each inserted item of `entity` invokes `fn` (asynchronously) with
   * `input`. An event EventBridge cannot deliver goes to the job's own `deadLetterQueue`; a run
   * that fails is retried by Lambda's own asynchronous retries, which the job's function sets.
   */
  invokeOn(
    scope: Construct,
    id: string,
    job: { entity: string; fn: IFunction; input: Record<string, string>; deadLetterQueue: IQueue },
  ): Rule {
    return this.ruleFor(scope, id, job.entity, "Invokes the job's function", [
      new LambdaFunction(job.fn, {
        event: RuleTargetInput.fromObject(job.input),
        retryAttempts: JOB_START_RETRY.attempts,
        maxEventAge: JOB_START_RETRY.maxEventAge,
        deadLetterQueue: job.deadLetterQueue,
      }),
    ]);
  }

  /** The rule matching inserted `entity` items on the bus, whose entity the pipe's filter then takes. */
  private ruleFor(scope: Construct, id: string, entity: string, does: string, targets: IRuleTarget[]): Rule {
    this.entities.push(entity);
    return new Rule(scope, id, {
      eventBus: this.bus,
      description: `${does} for each inserted ${entity} item`,
      eventPattern: {
        source: [JOB_ITEM_EVENT.source],
        detailType: [JOB_ITEM_EVENT.detailType],
        detail: { entity: [entity] },
      },
      targets,
    });
  }
}
