import {
  ArnFormat,
  type CfnElement,
  CfnOutput,
  Duration,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { EventField, Rule, RuleTargetInput } from 'aws-cdk-lib/aws-events';
import { SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import {
  Choice,
  Condition,
  DefinitionBody,
  Errors,
  Fail,
  JsonPath,
  LogLevel,
  Pass,
  StateMachine,
  Succeed,
  TaskInput,
} from 'aws-cdk-lib/aws-stepfunctions';
import { LambdaInvoke, StepFunctionsStartExecution } from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct, type IConstruct } from 'constructs';
import { ApiFunction } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { alarmOnFailedExecutions } from './monitoring.ts';
import { type BucketRef, bucketRef, privateBucket } from './private-bucket.ts';
import { IMPORT_JOB_ACCESS } from './table-access.ts';

/** The slice function's entry, relative to the repository root. */
export const IMPORT_HANDLER_FILE = 'functions/history-import.ts';

/**
 * History files are a hand-over, not a record, and hold raw personal data (e-mails, names,
 * addresses): the bucket forgets them after a week (the upload starts the import at once).
 */
export const IMPORT_FILE_EXPIRY = Duration.days(7);

/** The state names a local run overrides with the local handler. */
export const IMPORT_STATES = {
  newRun: 'NewRun',
  slice: 'ImportSlice',
  next: 'DoneYet',
  nextRun: 'NextRun',
  continueAsNew: 'ContinueAsNew',
  continued: 'ContinuedAsNew',
  imported: 'Imported',
  refused: 'ImportRefused',
  failed: 'ImportFailed',
} as const;

/**
 * Slices an execution runs before it hands the import on to a new execution of itself: about 7
 * history events a slice keeps 1,000 slices (10 days of 15-minute slices) far inside an execution's
 * 25,000 events, so an import of any size runs on, execution after execution.
 */
export const IMPORT_SLICES_PER_EXECUTION = 1_000;

/** Errors a retry cannot mend: the object, the merchant or the file is wrong (shared/history-import). */
const NOT_RETRIED = ['ImportRefusedError', 'ZodError'];

/** The uploads that start an import: `<merchantId>/<name>.ndjson`. */
export const IMPORT_FILE_SUFFIX = '.ndjson';

export interface ImportJobProps {
  config: StageConfig;
  table: ITable;
  bucket: Bucket;
  alarmTopic: ITopic;
  /** IMPORT_SLICES_PER_EXECUTION unless a test needs a handover after a few slices. */
  slicesPerExecution?: number;
}

/**
 * History import as a state machine (docs/operations.md, History import): an upload of
 * `<merchantId>/<name>.ndjson` to the imports bucket starts an execution (EventBridge). ImportSlice
 * runs the import function, which validates or imports from where the import stands until a minute
 * before its 15 minutes are up and answers where it stands now; DoneYet loops until the whole file
 * is imported (Imported) or refused for its bad lines (ImportRefused, nothing written). A slice that
 * fails is retried from the same position (an import is idempotent); one that keeps failing ends
 * the execution (ImportFailed). Any failed execution raises the alarm. After `slicesPerExecution`
 * slices an execution starts the next one of the same import where it stands (ContinueAsNew), named
 * after the import's first execution and its generation, so a retried start cannot start two.
 */
export class ImportJob extends Construct {
  readonly function: ApiFunction;
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: ImportJobProps) {
    super(scope, id);
    const { config, bucket } = props;
    const slicesPerExecution = props.slicesPerExecution ?? IMPORT_SLICES_PER_EXECUTION;
    // Named, so that its definition can start itself by an ARN known before it exists.
    const stateMachineName = `${Stack.of(this).stackName}-history-import`;
    this.function = new ApiFunction(this, 'ImportFunction', {
      name: 'historyImport',
      handlerFile: IMPORT_HANDLER_FILE,
      description: "One slice of a merchant's history import from the imports bucket (state machine)",
      environment: { ...commonEnvironment(config), IMPORT_BUCKET: bucket.bucketName },
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      // Lambda's limit: a slice stops starting events a minute before it and says where it stopped.
      timeout: Duration.minutes(15),
      // The file is streamed: a slice holds a window of events and recent orders, whatever its size.
      memorySize: 1024,
    });
    this.function.bindTable(props.table, IMPORT_JOB_ACCESS);
    // Imported events are digested as live ones are, under the merchant's key.
    this.function.readDigestKeys(config.stage);
    // GetObject also answers HeadObject (the object's size and version).
    this.function.role.addToPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects('*')] }),
    );

    const slice = new LambdaInvoke(this, IMPORT_STATES.slice, {
      lambdaFunction: this.function.handler,
      // The state is the import's whole input, passed as is; the function answers the next state.
      payloadResponseOnly: true,
      retryOnServiceExceptions: true,
    });
    slice.addRetry({ errors: NOT_RETRIED, maxAttempts: 0 });
    slice.addRetry({
      errors: [Errors.ALL],
      maxAttempts: 3,
      interval: Duration.seconds(30),
      backoffRate: 2,
    });
    const failed = new Fail(this, IMPORT_STATES.failed, {
      errorPath: '$.failure.Error',
      causePath: '$.failure.Cause',
    });
    slice.addCatch(failed, { resultPath: '$.failure' });

    // An upload starts generation 0; the run's root names every later generation's execution.
    const newRun = new Pass(this, IMPORT_STATES.newRun, {
      parameters: {
        root: JsonPath.hash(JsonPath.executionName, 'SHA-1'),
        generation: 0,
        slices: 0,
      },
      resultPath: '$.run',
    });
    const begin = new Choice(this, 'Begin')
      .when(Condition.isPresent('$.run'), slice)
      .otherwise(newRun.next(slice));
    const nextRun = new Pass(this, IMPORT_STATES.nextRun, {
      parameters: {
        root: JsonPath.stringAt('$.run.root'),
        generation: JsonPath.mathAdd(JsonPath.numberAt('$.run.generation'), 1),
        slices: 0,
      },
      resultPath: '$.run',
    });
    const ownArn = Stack.of(this).formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: stateMachineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const continueAsNew = new StepFunctionsStartExecution(this, IMPORT_STATES.continueAsNew, {
      stateMachine: StateMachine.fromStateMachineArn(this, 'Itself', ownArn),
      name: JsonPath.format('{}-g{}', JsonPath.stringAt('$.run.root'), JsonPath.stringAt('$.run.generation')),
      input: TaskInput.fromJsonPathAt('$'),
      resultPath: JsonPath.DISCARD,
    });
    continueAsNew.addRetry({ errors: [Errors.ALL], maxAttempts: 3, interval: Duration.seconds(5) });
    continueAsNew.addCatch(failed, { resultPath: '$.failure' });
    const next = new Choice(this, IMPORT_STATES.next)
      .when(Condition.stringEquals('$.progress.phase', 'done'), new Succeed(this, IMPORT_STATES.imported))
      .when(
        Condition.stringEquals('$.progress.phase', 'refused'),
        new Fail(this, IMPORT_STATES.refused, { error: 'ImportRefused', causePath: '$.error' }),
      )
      .when(
        Condition.numberGreaterThanEquals('$.run.slices', slicesPerExecution),
        nextRun.next(continueAsNew).next(new Succeed(this, IMPORT_STATES.continued)),
      )
      .otherwise(slice);

    const logGroup = new LogGroup(this, 'StateMachineLogs', {
      retention: config.logRetention,
      removalPolicy: removalPolicyFor(config.protectData),
    });
    slice.next(next);
    this.stateMachine = new StateMachine(this, 'Import', {
      stateMachineName,
      comment: `A merchant's history import (${config.stage}): slices of the import function until done`,
      definitionBody: DefinitionBody.fromChainable(begin),
      tracingEnabled: true,
      logs: { destination: logGroup, level: LogLevel.ALL, includeExecutionData: false },
      // Slices run until the handover (about 10 days), with room for retries.
      timeout: Duration.days(14),
    });

    new Rule(this, 'StartOnUpload', {
      description: 'Starts a history import for each NDJSON file uploaded to the imports bucket',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: {
          bucket: { name: [bucket.bucketName] },
          object: { key: [{ suffix: IMPORT_FILE_SUFFIX }] },
        },
      },
      targets: [
        new SfnStateMachine(this.stateMachine, {
          input: RuleTargetInput.fromObject({ key: EventField.fromPath('$.detail.object.key') }),
          retryAttempts: 10,
        }),
      ],
    });

    alarmOnFailedExecutions(
      this,
      'FailedImports',
      {
        stateMachine: this.stateMachine,
        period: Duration.minutes(15),
        description: `A history import failed or was refused (${config.stage}): see docs/operations.md`,
      },
      props.alarmTopic,
    );
    this.acknowledgeFindings(bucket);
  }

  /** cdk-nag's wildcard findings here, each deliberate: the bucket's objects, qualified ARNs, X-Ray and logs. */
  private acknowledgeFindings(bucket: Bucket): void {
    const stack = Stack.of(this);
    const arn = (construct: IConstruct) =>
      `<${stack.getLogicalId(construct.node.defaultChild as CfnElement)}.Arn>`;
    Validations.of(this.function.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${arn(bucket)}/*]`,
      reason:
        's3:GetObject on the objects of the imports bucket (any key: the job takes the key it is given, ' +
        "and checks it is under the merchant's prefix); no other bucket, no listing, no writing.",
    });
    Validations.of(this.stateMachine).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::${arn(this.function.handler)}:*]`,
        reason:
          'The state machine invokes its slice function and its qualified ARNs, as LambdaInvoke grants it',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray tracing and CloudWatch Logs delivery of the state machine take no resource-level ARN',
      },
    );
  }
}

export interface ImportStackProps extends StackProps {
  config: StageConfig;
  table: ITable;
  alarmTopic: ITopic;
}

/**
 * History import in AWS: a private bucket for merchants' NDJSON history files (`<merchantId>/...`)
 * whose uploads start the import state machine (ImportJob).
 */
export class ImportStack extends Stack {
  readonly bucket: Bucket;
  readonly job: ImportJob;
  /** The bucket for the privacy worker, whose offboarding deletes a leaving merchant's files. */
  readonly forPrivacyWorker: BucketRef;

  constructor(scope: Construct, id: string, props: ImportStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.bucket = privateBucket(this, 'Imports', {
      retain: config.protectData,
      lifecycleRules: [
        { expiration: IMPORT_FILE_EXPIRY, abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    // Uploads reach EventBridge by the bucket's own property (CDK's eventBridgeEnabled would add a
    // custom resource function to set it).
    (this.bucket.node.defaultChild as CfnBucket).notificationConfiguration = {
      eventBridgeConfiguration: { eventBridgeEnabled: true },
    };
    this.job = new ImportJob(this, 'Job', { ...props, bucket: this.bucket });
    this.forPrivacyWorker = bucketRef(this, this.bucket, 'ImportsBucketArn');

    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Operators upload history files and the import function reads them, both through IAM-authorised ' +
        'calls CloudTrail records; objects expire after 7 days, so server access logs would add nothing.',
    });

    new CfnOutput(this, 'ImportBucketName', {
      value: this.bucket.bucketName,
      description: 'Upload history files here as <merchantId>/<name>.ndjson: each upload starts an import',
    });
    new CfnOutput(this, 'ImportStateMachineArn', {
      value: this.job.stateMachine.stateMachineArn,
      description: 'Each upload runs as an execution of this state machine',
    });
  }
}
