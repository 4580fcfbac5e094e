import { Aws, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { type IMetric, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ERASURE_STAGING_PREFIX } from '../shared/lake/lake-erasure.ts';
import { LAKE_TABLE_NAMES } from '../shared/lake/lake-tables.ts';
import { EXPORTS_PREFIX_PATTERN } from '../shared/privacy/exports-bucket.ts';
import {
  ApiFunction,
  acknowledgeStreamReading,
  METRICS_NAMESPACE,
  POWERTOOLS_SERVICE_NAME,
} from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { deadLetterQueue } from './dead-letter-queue.ts';
import type { LakeRef } from './lake-stack.ts';
import { alarmAtOrAbove } from './monitoring.ts';
import type { BucketRef } from './private-bucket.ts';
import { PRIVACY_WORKER_ACCESS } from './table-access.ts';

export const PRIVACY_WORKER_HANDLER_FILE = 'functions/privacy-worker.ts';

/**
 * Stream retries of an invocation that crashed or timed out (a failed slice is not one: the worker
 * counts it on the request, and that write wakes it again). Past them the record goes to the
 * dead-letter queue, which alarms: the request waits until `npm run admin -- privacy run`.
 */
export const PRIVACY_STREAM_RETRIES = 2;

/**
 * How often the worker looks for erasures whose second lake pass is due (an hour after the first,
 * shared/use-cases/privacy-requests.ts LAKE_RECHECK_MS): a pass runs within this of its time.
 */
export const LAKE_PASS_SCHEDULE = Duration.minutes(15);

/** Three slices' worth (shared/use-cases/privacy-requests.ts PRIVACY_SLICE_MS): Lambda's longest run. */
const WORKER_TIMEOUT = Duration.minutes(15);

export interface PrivacyStackProps extends StackProps {
  config: StageConfig;
  table: Table;
  /** The API stack's exports bucket, whose links the management API signs: the worker writes there. */
  exportsBucket: BucketRef;
  /** The Import stack's bucket of history files: offboarding deletes the merchant's. */
  importsBucket: BucketRef;
  /** The lake, whose files an erasure rewrites without the customer's rows. */
  lake: LakeRef;
  /** The API stack's alarm topic. */
  alarmTopic: ITopic;
}

/**
 * The privacy worker (docs/privacy.md): erase and export requests, out of the request's path, in a
 * stack of its own (the API stack's per-function rules are for request functions).
 *
 * Woken by the table's stream, filtered to privacy requests still pending, rather than by a queue:
 * recording a request is one transaction (request and audit entry), so the stream's record of it
 * cannot be lost or sent for a request that was not recorded, as a second write to a queue could.
 * The same holds for each slice's progress and each failed attempt, which are writes to the request:
 * every one wakes the worker for the next slice, until the request ends and no longer matches.
 */
export class PrivacyStack extends Stack {
  readonly worker: ApiFunction;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: PrivacyStackProps) {
    super(scope, id, props);
    const { config, table, exportsBucket, importsBucket, lake } = props;

    this.deadLetterQueue = deadLetterQueue(this, 'the stream source');
    this.worker = new ApiFunction(this, 'WorkerFunction', {
      name: 'privacyWorker',
      handlerFile: PRIVACY_WORKER_HANDLER_FILE,
      description: 'Runs pending privacy requests (erase, export) from the table stream, slice by slice',
      environment: {
        ...commonEnvironment(config),
        EXPORTS_BUCKET: exportsBucket.bucketName,
        IMPORT_BUCKET: importsBucket.bucketName,
        LAKE_BUCKET: lake.bucketName,
        LAKE_DATABASE: lake.database,
        LAKE_WORKGROUP: lake.workGroup,
      },
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      timeout: WORKER_TIMEOUT,
      withLakeQueries: true,
    });
    // The request holds digests already: no digest key to read, no network secret, no webhook key.
    this.worker.bindTable(table, PRIVACY_WORKER_ACCESS);
    // Offboarding deletes the merchant's digest key and its objects in the exports and imports buckets.
    this.worker.deleteDigestKeys(config.stage);
    for (const bucket of [exportsBucket, importsBucket]) {
      this.worker.role.addToPolicy(
        new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }),
      );
      this.worker.role.addToPolicy(
        new PolicyStatement({ actions: ['s3:DeleteObject'], resources: [`${bucket.bucketArn}/*`] }),
      );
      Validations.of(this.worker.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${bucket.arnExportName}/*]`,
        reason:
          "Offboarding deletes a merchant's objects under its prefix <merchantId>/ in the exports and imports " +
          'buckets; the merchant is only known when it leaves. Deleting only, no reading.',
      });
    }
    this.worker.role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [`${exportsBucket.bucketArn}/${EXPORTS_PREFIX_PATTERN}`],
      }),
    );
    Validations.of(this.worker.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${exportsBucket.arnExportName}/${EXPORTS_PREFIX_PATTERN}]`,
      reason:
        'Writes one export object per request under <merchantId>/privacy/ in the exports bucket; the ' +
        'merchant is only known when the request arrives. No reading, listing or deleting.',
    });
    this.grantLakeErasure(lake);
    this.worker.handler.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.LATEST,
        // One request per invocation: each slice has the whole timeout to itself.
        batchSize: 1,
        retryAttempts: PRIVACY_STREAM_RETRIES,
        onFailure: new SqsDlq(this.deadLetterQueue),
        filters: [
          FilterCriteria.filter({
            dynamodb: {
              NewImage: {
                entity: { S: FilterRule.isEqual('privacyRequest') },
                status: { S: FilterRule.isEqual('pending') },
              },
            },
          }),
          // An offboarding recorded, advanced by a slice or with a failed slice counted: its next slice.
          FilterCriteria.filter({
            dynamodb: {
              NewImage: {
                entity: { S: FilterRule.isEqual('offboardedMerchant') },
                status: { S: FilterRule.isEqual('running') },
              },
            },
          }),
          // An erasure just done: its first lake pass.
          FilterCriteria.filter({
            dynamodb: {
              NewImage: {
                entity: { S: FilterRule.isEqual('privacyRequest') },
                lakeErasure: { M: { passes: { N: FilterRule.isEqual('0') } } },
              },
            },
          }),
        ],
      }),
    );
    new Rule(this, 'LakePassesSchedule', {
      description: 'Runs the lake passes of erasures that are due (the second, an hour after the first)',
      schedule: Schedule.rate(LAKE_PASS_SCHEDULE),
      targets: [new LambdaFunction(this.worker.handler, { retryAttempts: 0 })],
    });
    acknowledgeStreamReading(this.worker.role);

    const alarm = (name: string, metric: IMetric, description: string) =>
      alarmAtOrAbove(this, name, { metric, description }, props.alarmTopic);
    const period = Duration.minutes(5);
    alarm(
      'WorkerErrorsAlarm',
      this.worker.handler.metricErrors({ period, statistic: 'Sum' }),
      'The privacy worker crashed or timed out; the stream retries the slice',
    );
    alarm(
      'DeadLettersAlarm',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Max' }),
      'A privacy request stopped waking the worker; it waits until `npm run admin -- privacy run`',
    );
    const counted = (metricName: string) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: POWERTOOLS_SERVICE_NAME },
        statistic: 'Sum',
        period,
      });
    alarm(
      'RequestsFailedAlarm',
      counted('PrivacyRequestsFailed'),
      'A privacy request failed after its attempts; GET on it gives the reason (docs/operations.md)',
    );
    alarm(
      'LakePassesFailedAlarm',
      counted('PrivacyLakePassesFailed'),
      "An erasure's pass over the lake failed; it stays due and runs again (docs/operations.md)",
    );
    alarm(
      'OffboardingSlicesFailedAlarm',
      counted('OffboardingSlicesFailed'),
      'A slice of an offboarding failed; the next resumes it, and after 3 the run ends failed (docs/operations.md)',
    );
  }

  /**
   * An erasure's passes over the lake (shared/lake/athena-lake-erasure.ts): Athena queries in the
   * lake's workgroup (it reads the lake and writes results and UNLOAD's files with the caller's
   * rights), the staged files copied into the partition, the files rewritten deleted.
   */
  private grantLakeErasure(lake: LakeRef): void {
    const allow = (actions: string[], resources: string[]) =>
      this.worker.role.addToPolicy(new PolicyStatement({ actions, resources }));
    allow(
      ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults'],
      [`arn:${Aws.PARTITION}:athena:${Aws.REGION}:${Aws.ACCOUNT_ID}:workgroup/${lake.workGroup}`],
    );
    const glue = `arn:${Aws.PARTITION}:glue:${Aws.REGION}:${Aws.ACCOUNT_ID}`;
    allow(
      ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartitions'],
      [
        `${glue}:catalog`,
        `${glue}:database/${lake.database}`,
        ...LAKE_TABLE_NAMES.map((t) => `${glue}:table/${lake.database}/${t}`),
      ],
    );
    allow(['s3:ListBucket', 's3:GetBucketLocation'], [lake.bucketArn, lake.resultsBucketArn]);
    const prefixes = [...LAKE_TABLE_NAMES.map((t) => `${t}/`), ERASURE_STAGING_PREFIX];
    allow(
      ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
      prefixes.map((prefix) => `${lake.bucketArn}/${prefix}*`),
    );
    allow(['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload'], [`${lake.resultsBucketArn}/athena/*`]);
    Validations.of(this.worker.role).acknowledge(
      ...prefixes.map((prefix) => ({
        id: `AwsSolutions-IAM5[Resource::${lake.arnExportName}/${prefix}*]`,
        reason: `An erasure rewrites the lake files under ${prefix} that hold a customer's rows: it reads them, writes their kept rows and deletes them`,
      })),
      {
        id: `AwsSolutions-IAM5[Resource::${lake.resultsArnExportName}/athena/*]`,
        reason: "Athena's results of the erasure's queries, with the caller's rights",
      },
    );
  }
}
