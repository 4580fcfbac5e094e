import { CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { StepFunctionsStartExecution } from 'aws-cdk-lib/aws-scheduler-targets';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import {
  DefinitionBody,
  DistributedMap,
  JsonPath,
  LogLevel,
  Pass,
  ResultWriter,
  S3JsonItemReader,
  StateMachine,
  StateMachineType,
  TaskInput,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import type { LakeTableName } from '../shared/lake/lake-tables.ts';
import { ApiFunction, METRICS_NAMESPACE } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { grantLakeQueries, type LakeForQueries } from './lake-query-grants.ts';
import { alarmOnFailedExecutions } from './monitoring.ts';
import { nagPseudo } from './nag-pseudo.ts';
import { TABLE_ACCESS } from './table-access.ts';

/** The state names the local run overrides with local handlers (test/support/learning-run.ts). */
export const LEARNING_STATES = {
  listItems: 'ListItems',
  eachItem: 'EachMerchantAndType',
  trainingSet: 'TrainingSet',
  fit: 'Fit',
  itemFailed: 'ItemFailed',
  summarize: 'Summarize',
} as const;
export const LEARNING_HANDLER_FILES = {
  listItems: 'functions/learning-items.ts',
  trainingSet: 'functions/learning-training-set.ts',
  fit: 'functions/learning-fit.ts',
  summarize: 'functions/learning-summary.ts',
} as const;
/** When the nightly run starts (UTC): after most merchants' daily dispute and disposition uploads. */
export const NIGHTLY_LEARNING_CRON = { minute: '0', hour: '3' } as const;
/**
 * The lake tables a training set reads: its events, their feedback, the trade-off histogram and the
 * overview rollup (shared/lake/queries/training_*.sql, event_count, latest_event, tradeoff_histogram,
 * overview_rollup). List changes are not read.
 */
const TRAINING_TABLES: readonly LakeTableName[] = ['decided_events', 'feedback'];
/** Items fitted at once: Athena's concurrent queries per account are the limit that matters. */
export const LEARNING_CONCURRENCY = 20;

export interface LearningJobProps {
  config: StageConfig;
  table: ITable;
  /** The lake it reads (by Athena) and the bucket it leaves its work in (items, sets, results). */
  lake: LakeForQueries;
  alarmTopic: ITopic;
}

/**
 * Nightly learning as a state machine (docs/learning.md): ListItems writes the run's items (merchant
 * × event type) to the work bucket; a Distributed Map runs each item as its own child execution: its
 * training set from the lake by Athena (TrainingSet), then one function fits, evaluates, promotes and
 * refreshes the guard (Fit). Each step retries; an item whose retries are spent is caught as failed,
 * so it never stops another (and the map tolerates any share of failures besides); Summarize counts
 * the outcomes from the map's result files and publishes them, and a failed item raises the alarm.
 */
export class LearningJob extends Construct {
  readonly stateMachine: StateMachine;
  readonly functions: Record<keyof typeof LEARNING_HANDLER_FILES, ApiFunction>;

  constructor(scope: Construct, id: string, props: LearningJobProps) {
    super(scope, id);
    const { config, lake } = props;
    const environment = {
      // The fit writes model versions, which carry the retention like every item.
      ...commonEnvironment(config),
      WORK_BUCKET: lake.workBucket.bucketName,
      LAKE_DATABASE: lake.database,
      LAKE_WORKGROUP: lake.workGroup,
    };
    const fn = (key: keyof typeof LEARNING_HANDLER_FILES, description: string, memorySize: number) =>
      new ApiFunction(this, `${LEARNING_STATES[key]}Function`, {
        name: 'learning',
        handlerFile: LEARNING_HANDLER_FILES[key],
        description,
        environment,
        logRetention: config.logRetention,
        logRemovalPolicy: removalPolicyFor(config.protectData),
        timeout: Duration.minutes(15),
        memorySize,
        withLakeQueries: key === 'trainingSet',
      });
    this.functions = {
      listItems: fn('listItems', 'Lists the learning run items: merchant x event type', 512),
      trainingSet: fn('trainingSet', "Builds an item's training set from the lake (Athena)", 1024),
      // The benchmark's largest merchant fits in under 1 GB (docs/benchmarks.md, lake): 3 GB is margin.
      fit: fn('fit', 'Fits, evaluates and promotes a merchant model; refreshes the guard', 3008),
      summarize: fn('summarize', "Counts a learning run's outcomes", 512),
    };
    const { listItems, trainingSet, fit, summarize } = this.functions;
    listItems.bindTable(props.table, TABLE_ACCESS.learningItems);
    fit.bindTable(props.table, TABLE_ACCESS.training);
    const work = (prefix: string) => lake.workBucket.arnForObjects(`learning/${prefix}`);
    const allow = (role: ApiFunction['role'], actions: string[], resources: string[]) =>
      role.addToPolicy(new PolicyStatement({ actions, resources }));
    allow(listItems.role, ['s3:PutObject'], [work('*')]);
    allow(trainingSet.role, ['s3:PutObject'], [work('*')]);
    allow(fit.role, ['s3:GetObject'], [work('*')]);
    allow(summarize.role, ['s3:GetObject'], [work('*')]);
    const queryFindings = grantLakeQueries(trainingSet.role, lake, TRAINING_TABLES, {
      readsResults: true,
      purpose: 'training set',
    });

    const invoke = (
      key: keyof typeof LEARNING_HANDLER_FILES,
      payload: Record<string, unknown>,
      resultPath?: string,
    ) =>
      new LambdaInvoke(this, LEARNING_STATES[key], {
        lambdaFunction: this.functions[key].handler,
        payload: TaskInput.fromObject(payload),
        payloadResponseOnly: true,
        retryOnServiceExceptions: true,
        ...(resultPath ? { resultPath } : {}),
      });
    const items = invoke('listItems', { 'runId.$': '$$.Execution.Name', 'request.$': '$' });
    // The set's reference joins the item's input, for the fit.
    const setStep = invoke(
      'trainingSet',
      { 'runId.$': '$.runId', 'now.$': '$.now', 'item.$': '$.item' },
      '$.set',
    );
    setStep.addRetry({ maxAttempts: 2, interval: Duration.seconds(30), backoffRate: 2 });
    const fitStep = invoke('fit', { 'now.$': '$.now', 'item.$': '$.item', 'set.$': '$.set' });
    fitStep.addRetry({ maxAttempts: 2, interval: Duration.seconds(30), backoffRate: 2 });
    const itemFailed = new Pass(this, LEARNING_STATES.itemFailed, {
      parameters: {
        'merchantId.$': '$.item.merchantId',
        'eventType.$': '$.item.eventType',
        failed: true,
        'error.$': '$.error',
      },
    });
    for (const step of [setStep, fitStep]) step.addCatch(itemFailed, { resultPath: '$.error' });
    setStep.next(fitStep);
    const eachItem = new DistributedMap(this, LEARNING_STATES.eachItem, {
      itemReader: new S3JsonItemReader({
        bucketNamePath: JsonPath.stringAt('$.bucket'),
        key: JsonPath.stringAt('$.key'),
      }),
      itemSelector: {
        'item.$': '$$.Map.Item.Value',
        'runId.$': '$$.Execution.Name',
        // ListItems' clock: every item of one run trains as of the same instant.
        'now.$': '$.now',
      },
      resultWriter: new ResultWriter({ bucket: lake.workBucket, prefix: 'learning/results' }),
      // An item never stops another: failures are caught per item, and any share is tolerated.
      toleratedFailurePercentage: 100,
      maxConcurrency: LEARNING_CONCURRENCY,
      mapExecutionType: StateMachineType.STANDARD,
    });
    eachItem.itemProcessor(setStep);
    const summary = invoke('summarize', { 'resultWriter.$': '$.ResultWriterDetails' });

    const logGroup = new LogGroup(this, 'StateMachineLogs', {
      retention: config.logRetention,
      removalPolicy: removalPolicyFor(config.protectData),
    });
    this.stateMachine = new StateMachine(this, 'Learning', {
      comment: `Nightly learning (${config.stage}): a model per merchant and event type, from the lake`,
      definitionBody: DefinitionBody.fromChainable(items.next(eachItem).next(summary)),
      tracingEnabled: true,
      logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: false },
      timeout: Duration.hours(12),
    });
    // The map reads its items and writes its result files in the work bucket.
    this.stateMachine.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [work('*')],
      }),
    );
    this.stateMachine.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket', 's3:GetBucketLocation'],
        resources: [lake.workBucket.bucketArn],
      }),
    );

    const scheduleRole = new Role(this, 'ScheduleRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: 'Lets the nightly schedule start the learning state machine, nothing else',
    });
    new Schedule(this, 'Nightly', {
      description: `Nightly learning for every merchant (${config.stage})`,
      schedule: ScheduleExpression.cron(NIGHTLY_LEARNING_CRON),
      target: new StepFunctionsStartExecution(this.stateMachine, {
        input: ScheduleTargetInput.fromObject({}),
        retryAttempts: 0,
        role: scheduleRole,
      }),
    });

    const alarmAction = new SnsAction(props.alarmTopic);
    const failedItems = new Alarm(this, 'FailedItems', {
      alarmDescription: `Learning items failed (${config.stage}): see the Summarize step's log and the map run`,
      metric: new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'LearningItemsFailed',
        dimensionsMap: { service: 'abuse-decision' },
        statistic: 'Sum',
        period: Duration.days(1),
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    failedItems.addAlarmAction(alarmAction);
    alarmOnFailedExecutions(
      this,
      'FailedRuns',
      {
        stateMachine: this.stateMachine,
        period: Duration.days(1),
        description: `A learning run failed as a whole (${config.stage}): see the execution's history`,
      },
      props.alarmTopic,
    );

    new CfnOutput(this, 'LearningStateMachineArn', {
      value: this.stateMachine.stateMachineArn,
      description:
        'Start with {"merchantId": "...", "eventType": "order", "promote": true} to train one on demand',
    });
    this.acknowledgeFindings(lake, queryFindings);
  }

  /** cdk-nag's wildcard findings here, each deliberate: object prefixes, qualified ARNs, child executions. */
  private acknowledgeFindings(lake: LearningJobProps['lake'], queryFindings: [string, string][]): void {
    const stack = Stack.of(this);
    const { partition, region, account } = nagPseudo(stack);
    const id = (construct: Construct) => stack.getLogicalId(construct.node.defaultChild as CfnBucket);
    const work = `<${id(lake.workBucket)}.Arn>`;
    const machine = id(this.stateMachine);
    const findings = [
      [
        `Resource::${work}/learning/*`,
        "Objects of the learning runs' prefix in the work bucket: items, training sets, map results",
      ],
      ...queryFindings,
      ...Object.values(this.functions).map((fn) => [
        `Resource::<${id(fn.handler)}.Arn>:*`,
        'The state machine invokes its own step functions and their qualified ARNs, as LambdaInvoke grants it',
      ]),
      [
        `Resource::arn:${partition}:states:${region}:${account}:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${machine}"}]}]}/*:*`,
        "The Distributed Map's child executions, named by Step Functions at run time",
      ],
      [
        `Resource::arn:${partition}:states:${region}:${account}:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${machine}"}]}]}:*`,
        "The Distributed Map's map runs, named by Step Functions at run time",
      ],
      [
        'Resource::*',
        'X-Ray tracing and CloudWatch Logs delivery of the state machine take no resource-level ARN',
      ],
    ];
    Validations.of(this).acknowledge(
      ...findings.map(([finding, reason]) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason: reason! })),
    );
  }
}
