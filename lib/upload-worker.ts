import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ApiFunction, acknowledgeStreamReading } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { deadLetterQueue } from './dead-letter-queue.ts';
import { UPLOAD_WORKER_ACCESS } from './table-access.ts';

export interface UploadWorkerStackProps extends StackProps {
  config: StageConfig;
  table: Table;
  /** The API stack's alarm topic: an upload the worker gave up on alarms there. */
  alarmTopic: ITopic;
}

/**
 * Stream retries of an upload after a failed run. The worker itself gives an upload up as `failed`
 * on its run after MAX_UPLOAD_ATTEMPTS (shared/use-cases/record-upload.ts), so the stream must
 * offer it that many more times (test/infra.test.ts holds the two equal).
 */
export const UPLOAD_STREAM_RETRIES = 3;

/**
 * A 5 MB file is at most some 25,000 returns; at DynamoDB's pace (16 returns in flight) that is
 * well under a minute, at DynamoDB Local's serial transactions under two. Ten minutes leaves room.
 */
const WORKER_TIMEOUT = Duration.minutes(10);

/**
 * Recording of accepted dispositions uploads, out of the request's path: the worker Lambda is fed
 * by the table's stream, filtered to new upload items (entity `dispositionUpload`), one upload per
 * invocation and up to four at once per shard; a run that fails is retried by the stream, then
 * reported to a dead-letter queue that alarms.
 */
export class UploadWorkerStack extends Stack {
  readonly worker: ApiFunction;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: UploadWorkerStackProps) {
    super(scope, id, props);
    const { config, table } = props;

    this.deadLetterQueue = deadLetterQueue(this, 'the stream source');
    this.worker = new ApiFunction(this, 'WorkerFunction', {
      name: 'dispositionsUploadWorker',
      handlerFile: 'functions/dispositions-upload-worker.ts',
      description: 'Records accepted dispositions CSV uploads (table stream), chunk by chunk',
      environment: commonEnvironment(config),
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      timeout: WORKER_TIMEOUT,
    });
    this.worker.bindTable(table, UPLOAD_WORKER_ACCESS);
    this.worker.handler.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 1,
        // Uploads are items of their own partitions: several record at once from one shard.
        parallelizationFactor: 4,
        retryAttempts: UPLOAD_STREAM_RETRIES,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.deadLetterQueue),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { entity: { S: FilterRule.isEqual('dispositionUpload') } } },
          }),
        ],
      }),
    );

    new Alarm(this, 'DeadLettersAlarm', {
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Max',
      }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: 'A dispositions upload the worker could not record reached the dead-letter queue',
    }).addAlarmAction(new SnsAction(props.alarmTopic));

    acknowledgeStreamReading(this.worker.role);
  }
}
