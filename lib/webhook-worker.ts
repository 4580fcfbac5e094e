import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { NETWORK_QUEUED_ATTRIBUTE } from '../shared/store/network-items.ts';
import {
  ApiFunction,
  acknowledgeStreamReading,
  METRICS_NAMESPACE,
  POWERTOOLS_SERVICE_NAME,
} from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { deadLetterQueue } from './dead-letter-queue.ts';
import { WEBHOOK_WORKER_ACCESS } from './table-access.ts';

export interface WebhookStackProps extends StackProps {
  config: StageConfig;
  table: Table;
  /** The API stack's alarm topic: an endpoint disabled for failing 72 h alarms there. */
  alarmTopic: ITopic;
  /** Seals webhook signing secrets: the worker opens them to sign. */
  webhookSecretsKey: IKey;
}

/** The worker's function timeout: a batch of attempts, each waiting at most 10 s on its receiver. */
const WORKER_TIMEOUT = Duration.seconds(60);
/** Due attempts waiting this long for the worker, over three 5-minute periods, mean it is falling behind. */
export const DELIVERY_BACKLOG_ALARM = 1_000;

/**
 * Webhook delivery and the network's contributions, out of the decision's path. The worker Lambda is
 * fed by the table's stream, filtered to new outbox items (entity `webhookEvent`) and network work,
 * where it only fans each outbox item out onto the delivery queue; and by that queue (SQS, with a
 * dead-letter queue), whose messages make every attempt, the first included, so a receiver that hangs
 * holds up only its own messages, never a stream shard. Its role reads and writes only the table
 * items the delivery code touches, reads the stream, and sends to and receives from its own queues.
 */
export class WebhookStack extends Stack {
  readonly worker: ApiFunction;
  readonly deliveryQueue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: WebhookStackProps) {
    super(scope, id, props);
    const { config, table } = props;
    const removalPolicy = removalPolicyFor(config.protectData);

    this.deadLetterQueue = deadLetterQueue(this, 'the delivery queue and of the stream source');
    // The id of the retry queue it grew from: a deployment keeps the retries waiting in it.
    this.deliveryQueue = new Queue(this, 'Retries', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Six times the function timeout, as Lambda's SQS integration asks.
      visibilityTimeout: Duration.seconds(WORKER_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: 5 },
    });

    this.worker = new ApiFunction(this, 'WorkerFunction', {
      name: 'webhookWorker',
      handlerFile: 'functions/webhook-worker.ts',
      description:
        'Fans the outbox (table stream) out onto the delivery queue; delivers signed webhooks from it',
      environment: {
        ...commonEnvironment(config),
        WEBHOOK_DELIVERY_QUEUE_URL: this.deliveryQueue.queueUrl,
      },
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicy,
      timeout: WORKER_TIMEOUT,
    });
    this.worker.bindTable(table, WEBHOOK_WORKER_ACCESS);
    this.deliveryQueue.grantSendMessages(this.worker.role);
    this.worker.bindWebhookSecretsKey(props.webhookSecretsKey, 'open');

    this.worker.handler.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 10,
        bisectBatchOnError: true,
        retryAttempts: 10,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.deadLetterQueue),
        filters: [
          FilterCriteria.filter({
            eventName: FilterRule.isEqual('INSERT'),
            dynamodb: { NewImage: { entity: { S: FilterRule.isEqual('webhookEvent') } } },
          }),
          // Network members' queued feedback and first sightings: only members' items carry the marker.
          FilterCriteria.filter({
            dynamodb: { NewImage: { [NETWORK_QUEUED_ATTRIBUTE]: { S: FilterRule.exists() } } },
          }),
        ],
      }),
    );
    this.worker.handler.addEventSource(
      new SqsEventSource(this.deliveryQueue, { batchSize: 10, reportBatchItemFailures: true }),
    );

    const alarm = (name: string, metric: Metric, description: string, threshold = 1, evaluationPeriods = 1) =>
      new Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      }).addAlarmAction(new SnsAction(props.alarmTopic));
    alarm(
      'EndpointsDisabledAlarm',
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'WebhookEndpointsDisabled',
        dimensionsMap: { service: POWERTOOLS_SERVICE_NAME },
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      'A merchant webhook endpoint was disabled after failing for 72 hours',
    );
    alarm(
      'DeadLettersAlarm',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Max',
      }),
      'Webhook work the worker could not process reached the dead-letter queue',
    );
    // A merchant whose confirmed-abuse contributions ran past the network's daily cap (docs/network.md):
    // a burst worth a look (planting, or a feedback integration gone wrong); the worker names it in its log.
    alarm(
      'NetworkContributionsCappedAlarm',
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'NetworkContributionsCapped',
        dimensionsMap: { service: POWERTOOLS_SERVICE_NAME },
        statistic: 'Sum',
        period: Duration.hours(1),
      }),
      "A network member's confirmed-abuse contributions ran past the daily cap: a burst to look into",
    );
    // Delayed messages are not visible: what is visible is due and waiting for the worker.
    alarm(
      'DeliveryBacklogAlarm',
      this.deliveryQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Min',
      }),
      'Due webhook attempts are waiting on the delivery queue: the worker is falling behind',
      DELIVERY_BACKLOG_ALARM,
      3,
    );

    acknowledgeStreamReading(this.worker.role);
  }
}
