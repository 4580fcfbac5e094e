import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { DefinitionBody, Fail, LogLevel, StateMachine, TaskInput } from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';
import { BACKTEST_ENTITY } from '../shared/store/backtests.ts';
import { backtestKeys } from '../shared/store/keys.ts';
import { ApiFunction } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { type JobStarts, jobDetail } from './job-starts.ts';
import { grantLakeQueries, type LakeForQueries } from './lake-query-grants.ts';
import { alarmOnFailedExecutions } from './monitoring.ts';

/** The state names a local run overrides with local handlers. */
export const BACKTEST_STATES = {
  backtest: 'Backtest',
  recordFailed: 'RecordFailed',
  failed: 'BacktestFailed',
} as const;
export const BACKTEST_HANDLER_FILE = 'functions/backtest-job.ts';

export interface BacktestJobProps {
  config: StageConfig;
  table: ITable;
  /** The jobs' reader of the table's changes: a new backtest item starts an execution. */
  starts: JobStarts;
  lake: LakeForQueries;
  alarmTopic: ITopic;
}

/**
 * Workflow backtests as a state machine (docs/lake.md, Backtests): started by its rule on the jobs'
 * bus (lib/job-starts.ts) when a backtest item is inserted. One step reads the window's decisions
 * from the lake (Athena: every one, or a uniform sample of a bounded size), re-decides them with the
 * candidate and records the report (retried); once its retries are spent, RecordFailed records why
 * and the execution fails, which raises the alarm: a backtest is never left pending.
 */
export class BacktestJob extends Construct {
  readonly stateMachine: StateMachine;
  readonly function: ApiFunction;

  constructor(scope: Construct, id: string, props: BacktestJobProps) {
    super(scope, id);
    const { config, lake } = props;
    this.function = new ApiFunction(this, 'StepFunction', {
      name: 'backtest',
      handlerFile: BACKTEST_HANDLER_FILE,
      description: "Re-decides a backtest's window from the lake (Athena) with its candidate workflow",
      environment: {
        ...commonEnvironment(config),
        LAKE_DATABASE: lake.database,
        LAKE_WORKGROUP: lake.workGroup,
      },
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      timeout: Duration.minutes(15),
      // The sample's rows are held at once: about 200,000 decisions with their signals and fields.
      memorySize: 3008,
      withLakeQueries: true,
    });
    // Its own backtest item: read, marked running, then its outcome.
    this.function.bindTable(props.table, {
      actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      queriedIndexes: [],
      leadingKeys: [backtestKeys.backtestPartitions],
    });
    const queryFindings = grantLakeQueries(this.function.role, lake, ['decided_events'], {
      readsResults: true,
      purpose: 'backtest',
    });

    const invoke = (stateId: string, payload: Record<string, unknown>) =>
      new LambdaInvoke(this, stateId, {
        lambdaFunction: this.function.handler,
        payload: TaskInput.fromObject(payload),
        payloadResponseOnly: true,
        retryOnServiceExceptions: true,
      });
    const ids = { 'merchantId.$': '$.merchantId', 'backtestId.$': '$.backtestId' };
    const backtest = invoke(BACKTEST_STATES.backtest, ids);
    backtest.addRetry({ maxAttempts: 2, interval: Duration.seconds(30), backoffRate: 2 });
    const recordFailed = invoke(BACKTEST_STATES.recordFailed, { ...ids, 'error.$': '$.error' });
    recordFailed.addRetry({ maxAttempts: 3, interval: Duration.seconds(10), backoffRate: 2 });
    backtest.addCatch(recordFailed, { resultPath: '$.error' });
    recordFailed.next(new Fail(this, BACKTEST_STATES.failed, { error: 'BacktestFailed' }));

    const logGroup = new LogGroup(this, 'StateMachineLogs', {
      retention: config.logRetention,
      removalPolicy: removalPolicyFor(config.protectData),
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      comment: `A workflow backtest over the lake (${config.stage}): one step, its failure recorded`,
      definitionBody: DefinitionBody.fromChainable(backtest),
      tracingEnabled: true,
      logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: false },
      timeout: Duration.hours(1),
    });

    props.starts.startOn(this, 'StartOnNewBacktest', {
      entity: BACKTEST_ENTITY,
      stateMachine: this.stateMachine,
      input: { merchantId: jobDetail.merchantId, backtestId: jobDetail.jobId },
    });

    alarmOnFailedExecutions(
      this,
      'FailedBacktests',
      {
        stateMachine: this.stateMachine,
        period: Duration.minutes(15),
        description: `A workflow backtest failed (${config.stage}): see the execution's history and docs/operations.md`,
      },
      props.alarmTopic,
    );

    const stack = Stack.of(this);
    const fnArn = `<${stack.getLogicalId(this.function.handler.node.defaultChild as CfnElement)}.Arn>`;
    const findings: [string, string][] = [
      ...queryFindings,
      [
        `Resource::${fnArn}:*`,
        'The state machine invokes its own step function and its qualified ARNs, as LambdaInvoke grants it',
      ],
      [
        'Resource::*',
        'X-Ray tracing and CloudWatch Logs delivery of the state machine take no resource-level ARN',
      ],
    ];
    Validations.of(this).acknowledge(
      ...findings.map(([finding, reason]) => ({ id: `AwsSolutions-IAM5[${finding}]`, reason })),
    );
  }
}
