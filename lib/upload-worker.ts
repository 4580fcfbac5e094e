import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DISPOSITION_UPLOAD_ENTITY } from '../shared/store/disposition-uploads.ts';
import { ApiFunction } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { deadLetterQueue } from './dead-letter-queue.ts';
import { type JobStarts, jobDetail } from './job-starts.ts';
import { UPLOAD_WORKER_ACCESS } from './table-access.ts';

export interface UploadWorkerStackProps extends StackProps {
  config: StageConfig;
  table: Table;
  /** The Lake stack's jobs' bus: an inserted upload item invokes the worker by a rule there. */
  jobStarts: JobStarts;
  /** The API stack's alarm topic: an upload the worker gave up on alarms there. */
  alarmTopic: ITopic;
}

/**
 * Lambda's asynchronous retries of a failed run (2, its most). The worker itself gives an upload up
 * as `failed` on its run after MAX_UPLOAD_ATTEMPTS (shared/use-cases/record-upload.ts), so Lambda
 * must offer it that many more runs (test/infra.test.ts holds the two equal).
 */
export const UPLOAD_RUN_RETRIES = 2;

/**
 * A 5 MB file is at most some 25,000 returns; at DynamoDB's pace (16 returns in flight) that is
 * well under a minute, at DynamoDB Local's serial transactions under two. Ten minutes leaves room.
 */
const WORKER_TIMEOUT = Duration.minutes(10);

/**
 * Recording of accepted dispositions uploads, out of the request's path: a rule on the jobs' bus
 * (lib/job-starts.ts) invokes the worker for each inserted upload item (entity `dispositionUpload`)
 * with its merchant and id, one upload per invocation; a run that fails is retried by Lambda, then
 * kept in a dead-letter queue that alarms, as is an event EventBridge could not deliver. The
 * table's DynamoDB stream is left to the webhook and privacy workers (AWS advises two readers).
 */
export class UploadWorkerStack extends Stack {
  readonly worker: ApiFunction;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: UploadWorkerStackProps) {
    super(scope, id, props);
    const { config, table } = props;

    this.deadLetterQueue = deadLetterQueue(this, "the worker's runs and its rule");
    this.worker = new ApiFunction(this, 'WorkerFunction', {
      name: 'dispositionsUploadWorker',
      handlerFile: 'functions/dispositions-upload-worker.ts',
      description: "Records accepted dispositions CSV uploads (jobs' bus), chunk by chunk",
      environment: commonEnvironment(config),
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      timeout: WORKER_TIMEOUT,
    });
    this.worker.bindTable(table, UPLOAD_WORKER_ACCESS);
    this.worker.handler.configureAsyncInvoke({
      retryAttempts: UPLOAD_RUN_RETRIES,
      onFailure: new SqsDestination(this.deadLetterQueue),
    });
    props.jobStarts.invokeOn(this, 'InvokeOnNewUpload', {
      entity: DISPOSITION_UPLOAD_ENTITY,
      fn: this.worker.handler,
      input: { merchantId: jobDetail.merchantId, uploadId: jobDetail.jobId },
      deadLetterQueue: this.deadLetterQueue,
    });

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
  }
}
