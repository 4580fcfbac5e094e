import { Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EXPORTS_PREFIX_PATTERN } from '../shared/privacy/exports-bucket.ts';
import {
  ApiFunction,
  acknowledgeStreamReading,
  METRICS_NAMESPACE,
  POWERTOOLS_SERVICE_NAME,
} from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { PRIVACY_WORKER_ACCESS } from './table-access.ts';

export const PRIVACY_WORKER_HANDLER_FILE = 'functions/privacy-worker.ts';

/**
 * Stream retries of an invocation that crashed or timed out (a failed slice is not one: the worker
 * counts it on the request, and that write wakes it again). Past them the record goes to the
 * dead-letter queue, which alarms: the request waits until `npm run admin -- privacy run`.
 */
export const PRIVACY_STREAM_RETRIES = 2;

/** Three slices' worth (shared/use-cases/privacy-requests.ts PRIVACY_SLICE_MS): Lambda's longest run. */
const WORKER_TIMEOUT = Duration.minutes(15);

/**
 * The exports bucket as the API stack hands it over: its ARN under an export name of the API
 * stack's choosing (CDK's own export names are hashes, and cdk-nag's acknowledgement names it).
 */
export interface ExportsBucketRef {
  bucketName: string;
  bucketArn: string;
  arnExportName: string;
}

export interface PrivacyStackProps extends StackProps {
  config: StageConfig;
  table: Table;
  /** The API stack's exports bucket, whose links the management API signs: the worker writes there. */
  exportsBucket: ExportsBucketRef;
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
    const { config, table, exportsBucket } = props;

    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.worker = new ApiFunction(this, 'WorkerFunction', {
      name: 'privacyWorker',
      handlerFile: PRIVACY_WORKER_HANDLER_FILE,
      description: 'Runs pending privacy requests (erase, export) from the table stream, slice by slice',
      environment: { ...commonEnvironment(config), EXPORTS_BUCKET: exportsBucket.bucketName },
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      timeout: WORKER_TIMEOUT,
    });
    // The request holds digests already: no digest key, no network secret, no webhook key.
    this.worker.bindTable(table, PRIVACY_WORKER_ACCESS);
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
        ],
      }),
    );
    acknowledgeStreamReading(this.worker.role);
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead-letter queue of the stream source; nothing redrives from it.',
    });

    const alarm = (name: string, metric: IMetric, description: string) =>
      new Alarm(this, name, {
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      }).addAlarmAction(new SnsAction(props.alarmTopic));
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
    alarm(
      'RequestsFailedAlarm',
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'PrivacyRequestsFailed',
        dimensionsMap: { service: POWERTOOLS_SERVICE_NAME },
        statistic: 'Sum',
        period,
      }),
      'A privacy request failed after its attempts; GET on it gives the reason (docs/operations.md)',
    );
  }
}
