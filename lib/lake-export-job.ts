import { Aws, type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import {
  CustomState,
  DefinitionBody,
  Fail,
  JsonPath,
  LogLevel,
  Map as MapState,
  StateMachine,
  TaskInput,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct, type IConstruct } from 'constructs';
import type { LakeTableName } from '../shared/lake/lake-tables.ts';
import { lakeExportKeys } from '../shared/store/keys.ts';
import { LAKE_EXPORT_ENTITY } from '../shared/store/lake-exports.ts';
import { ApiFunction } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { type JobStarts, jobDetail } from './job-starts.ts';
import { grantLakeQueries, type LakeForQueries } from './lake-query-grants.ts';
import { alarmOnFailedExecutions } from './monitoring.ts';
import { EXPORT_MACHINE_ACCESS } from './table-access.ts';
import { grantTableAccess } from './table-grant.ts';

/** The state names a local run overrides with local handlers. */
export const LAKE_EXPORT_STATES = {
  readKinds: 'ReadKinds',
  eachKind: 'EachKind',
  exportKind: 'ExportKind',
  recordDone: 'RecordDone',
  recordFailed: 'RecordFailed',
  failed: 'ExportFailed',
} as const;
export const LAKE_EXPORT_HANDLER_FILES = {
  exportKind: 'functions/lake-export-kind.ts',
  outcome: 'functions/lake-export-outcome.ts',
} as const;
/** The lake tables an export reads (list changes are not exported). */
const EXPORTED_TABLES: readonly LakeTableName[] = ['decided_events', 'feedback'];
/** Kinds queried at once per export: Athena's concurrent queries per account are shared. */
export const LAKE_EXPORT_CONCURRENCY = 4;

export interface LakeExportJobProps {
  config: StageConfig;
  table: ITable;
  /** The jobs' reader of the table's changes: a new export item starts an execution. */
  starts: JobStarts;
  lake: LakeForQueries;
  /** The API stack's exports bucket, imported by the name of its ARN's export. */
  exportsBucket: { bucket: IBucket; arnExport: string };
  alarmTopic: ITopic;
}

/**
 * Bulk exports as a state machine (docs/lake.md, Exports): started by its rule on the jobs' bus
 * (lib/job-starts.ts) when an export item is inserted (nothing in the request's path but the item).
 * ReadKinds reads the export's kinds from its item by the keys the start carries; a Map runs each
 * kind as one Athena query writing its files to the export's prefix (ExportKind, retried);
 * RecordDone records the files and audits; a read or a kind whose retries are spent is caught,
 * RecordFailed records why and the execution fails, which raises the alarm.
 */
export class LakeExportJob extends Construct {
  readonly stateMachine: StateMachine;
  readonly functions: Record<keyof typeof LAKE_EXPORT_HANDLER_FILES, ApiFunction>;

  constructor(scope: Construct, id: string, props: LakeExportJobProps) {
    super(scope, id);
    const { config, lake } = props;
    const fn = (key: keyof typeof LAKE_EXPORT_HANDLER_FILES, description: string) =>
      new ApiFunction(this, `${key === 'exportKind' ? 'ExportKind' : 'Outcome'}Function`, {
        name: 'lakeExport',
        handlerFile: LAKE_EXPORT_HANDLER_FILES[key],
        description,
        environment: {
          ...commonEnvironment(config),
          EXPORTS_BUCKET: props.exportsBucket.bucket.bucketName,
          LAKE_DATABASE: lake.database,
          LAKE_WORKGROUP: lake.workGroup,
        },
        logRetention: config.logRetention,
        logRemovalPolicy: removalPolicyFor(config.protectData),
        timeout: Duration.minutes(15),
        memorySize: 512,
        withLakeQueries: key === 'exportKind',
      });
    this.functions = {
      exportKind: fn('exportKind', "Writes one kind of a merchant's export from the lake (Athena)"),
      outcome: fn('outcome', "Records an export's files or failure, audited"),
    };
    const { exportKind, outcome } = this.functions;
    const queryFindings = this.grantExportKind(exportKind, props);
    // The outcome reads and updates the export's own item and adds to the merchant's audit log.
    outcome.bindTable(props.table, {
      actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      queriedIndexes: [],
      leadingKeys: [lakeExportKeys.exportPartitions],
    });
    outcome.bindTable(props.table, {
      actions: ['dynamodb:PutItem'],
      queriedIndexes: [],
      leadingKeys: [lakeExportKeys.auditPartitions],
    });

    const invoke = (stateId: string, target: ApiFunction, payload: Record<string, unknown>) =>
      new LambdaInvoke(this, stateId, {
        lambdaFunction: target.handler,
        payload: TaskInput.fromObject(payload),
        payloadResponseOnly: true,
        retryOnServiceExceptions: true,
      });
    const kindStep = invoke(LAKE_EXPORT_STATES.exportKind, exportKind, {
      'merchantId.$': '$.merchantId',
      'exportId.$': '$.exportId',
      'kind.$': '$.kind',
    });
    kindStep.addRetry({ maxAttempts: 3, interval: Duration.seconds(30), backoffRate: 2 });
    // The start event carries the export's ids and keys only (lib/job-starts.ts): its kinds are
    // read from the item, as DynamoDB types them (a list of strings).
    const readKinds = new CustomState(this, LAKE_EXPORT_STATES.readKinds, {
      stateJson: {
        Type: 'Task',
        Resource: `arn:${Aws.PARTITION}:states:::dynamodb:getItem`,
        Parameters: {
          TableName: props.table.tableName,
          'Key.$': '$.keys',
          ProjectionExpression: '#kinds',
          ExpressionAttributeNames: { '#kinds': 'kinds' },
          ConsistentRead: true,
        },
        ResultSelector: { 'kinds.$': '$.Item.kinds.L' },
        ResultPath: '$.item',
      },
    });
    readKinds.addRetry({ maxAttempts: 3, interval: Duration.seconds(5), backoffRate: 2 });
    const eachKind = new MapState(this, LAKE_EXPORT_STATES.eachKind, {
      itemsPath: JsonPath.stringAt('$.item.kinds'),
      itemSelector: {
        'merchantId.$': '$.merchantId',
        'exportId.$': '$.exportId',
        'kind.$': '$$.Map.Item.Value.S',
      },
      maxConcurrency: LAKE_EXPORT_CONCURRENCY,
      resultPath: '$.files',
    });
    eachKind.itemProcessor(kindStep);
    const ids = { 'merchantId.$': '$.merchantId', 'exportId.$': '$.exportId' };
    const recordDone = invoke(LAKE_EXPORT_STATES.recordDone, outcome, { ...ids, 'files.$': '$.files' });
    const recordFailed = invoke(LAKE_EXPORT_STATES.recordFailed, outcome, { ...ids, 'error.$': '$.error' });
    for (const step of [recordDone, recordFailed])
      step.addRetry({ maxAttempts: 3, interval: Duration.seconds(10), backoffRate: 2 });
    readKinds.addCatch(recordFailed, { resultPath: '$.error' });
    eachKind.addCatch(recordFailed, { resultPath: '$.error' });
    recordFailed.next(new Fail(this, LAKE_EXPORT_STATES.failed, { error: 'ExportFailed' }));

    const logGroup = new LogGroup(this, 'StateMachineLogs', {
      retention: config.logRetention,
      removalPolicy: removalPolicyFor(config.protectData),
    });
    this.stateMachine = new StateMachine(this, 'Export', {
      comment: `A merchant's bulk export from the lake (${config.stage}): one Athena query per kind`,
      definitionBody: DefinitionBody.fromChainable(readKinds.next(eachKind).next(recordDone)),
      tracingEnabled: true,
      logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: false },
      timeout: Duration.hours(2),
    });

    grantTableAccess(this.stateMachine.role, props.table, EXPORT_MACHINE_ACCESS);

    props.starts.startOn(this, 'StartOnNewExport', {
      entity: LAKE_EXPORT_ENTITY,
      stateMachine: this.stateMachine,
      input: {
        merchantId: jobDetail.merchantId,
        exportId: jobDetail.jobId,
        keys: jobDetail.keys,
      },
    });

    alarmOnFailedExecutions(
      this,
      'FailedExports',
      {
        stateMachine: this.stateMachine,
        period: Duration.minutes(15),
        description: `A bulk export failed (${config.stage}): see the execution's history and docs/operations.md`,
      },
      props.alarmTopic,
    );
    this.acknowledgeFindings(props, queryFindings);
  }

  /**
   * The kind's step reads its export item, runs its query in the lake's workgroup (Athena reads the
   * lake and writes results with the caller's rights) and writes files under `<merchant>/exports/`.
   */
  private grantExportKind(target: ApiFunction, props: LakeExportJobProps): [string, string][] {
    const { lake } = props;
    const exportsBucket = props.exportsBucket.bucket;
    target.bindTable(props.table, {
      actions: ['dynamodb:GetItem'],
      queriedIndexes: [],
      leadingKeys: [lakeExportKeys.exportPartitions],
    });
    const findings = grantLakeQueries(target.role, lake, EXPORTED_TABLES, {
      readsResults: false,
      purpose: 'export',
    });
    const allow = (actions: string[], resources: string[], conditions?: Record<string, unknown>) =>
      target.role.addToPolicy(
        new PolicyStatement({ actions, resources, ...(conditions ? { conditions } : {}) }),
      );
    allow(['s3:PutObject', 's3:AbortMultipartUpload'], [exportsBucket.arnForObjects('*/exports/*')]);
    // Listing only under the exports' prefixes (UNLOAD checks its folder is empty; the step lists
    // what it wrote); the location call carries no prefix, so it takes no condition.
    allow(['s3:ListBucket'], [exportsBucket.bucketArn], { StringLike: { 's3:prefix': ['*/exports/*'] } });
    allow(['s3:GetBucketLocation'], [exportsBucket.bucketArn]);
    return findings;
  }

  /** cdk-nag's wildcard findings here, each deliberate: object prefixes, qualified ARNs, X-Ray and logs. */
  private acknowledgeFindings(
    { exportsBucket }: LakeExportJobProps,
    queryFindings: [string, string][],
  ): void {
    const stack = Stack.of(this);
    const arn = (construct: IConstruct) =>
      `<${stack.getLogicalId(construct.node.defaultChild as CfnElement)}.Arn>`;
    const findings = [
      ...queryFindings,
      [
        `Resource::${exportsBucket.arnExport}/*/exports/*`,
        'Writes the files of exports under <merchantId>/exports/ in the exports bucket, nothing else there',
      ],
      ...Object.values(this.functions).map((fn) => [
        `Resource::${arn(fn.handler)}:*`,
        'The state machine invokes its own step functions and their qualified ARNs, as LambdaInvoke grants it',
      ]),
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
