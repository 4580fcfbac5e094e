import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IStream, StreamConsumer } from 'aws-cdk-lib/aws-kinesis';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { KinesisConsumerEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CONSOLE_EVENT_TYPES } from '../shared/schemas/console.ts';
import { ApiFunction } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { deadLetterQueue } from './dead-letter-queue.ts';
import { alarmAtOrAbove } from './monitoring.ts';
import { OVERVIEW_FEED_ACCESS } from './table-access.ts';

export interface OverviewFeedProps {
  config: StageConfig;
  table: ITable;
  /** The table's changes (Kinesis Data Streams for DynamoDB, lib/decision-table.ts). */
  changes: IStream;
  alarmTopic: ITopic;
}

/** Stream retries of a failed batch before it is given up to the dead-letter queue. */
export const OVERVIEW_FEED_RETRIES = 10;
/** Changes older than this are behind enough to alarm: the overview's today lags by as much. */
export const OVERVIEW_FEED_LAG_ALARM = Duration.minutes(15);

/**
 * The console overview's day counters (docs/lake.md, Overview), fed from the table's Kinesis stream
 * by a function on a dedicated-throughput (enhanced fan-out) consumer: the stream's shared five
 * reads a second per shard already serve three Firehose delivery streams and the lake jobs' pipe
 * (lib/job-starts.ts). Filtered to inserted decided events; a batch is one shard's, in order
 * (parallelization factor 1, which the counters' per-shard guard needs). Its role updates and
 * reads overview items only.
 */
export class OverviewFeed extends Construct {
  readonly feed: ApiFunction;
  readonly consumer: StreamConsumer;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: OverviewFeedProps) {
    super(scope, id);
    const { config } = props;
    this.deadLetterQueue = deadLetterQueue(this, 'the stream source');
    this.feed = new ApiFunction(this, 'Function', {
      name: 'overviewFeed',
      handlerFile: 'functions/overview-feed.ts',
      description:
        "Counts inserted decided events (the table's Kinesis stream) into the overview's day counters",
      environment: commonEnvironment(config),
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      timeout: Duration.seconds(60),
    });
    this.feed.bindTable(props.table, OVERVIEW_FEED_ACCESS);
    this.consumer = new StreamConsumer(this, 'Consumer', {
      streamConsumerName: `abuse-decision-${config.stage}-overview-feed`,
      stream: props.changes,
    });
    this.feed.handler.addEventSource(
      new KinesisConsumerEventSource(this.consumer, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 500,
        // Fewer, fuller batches: one update per merchant, type and day of a batch.
        maxBatchingWindow: Duration.seconds(5),
        parallelizationFactor: 1,
        bisectBatchOnError: true,
        retryAttempts: OVERVIEW_FEED_RETRIES,
        onFailure: new SqsDlq(this.deadLetterQueue),
        filters: [
          FilterCriteria.filter({
            data: {
              eventName: FilterRule.isEqual('INSERT'),
              dynamodb: { NewImage: { entity: { S: FilterRule.or(...CONSOLE_EVENT_TYPES) } } },
            },
          }),
        ],
      }),
    );

    const period = Duration.minutes(5);
    alarmAtOrAbove(
      this,
      'LagAlarm',
      {
        metric: this.feed.handler.metric('IteratorAge', { period, statistic: 'Maximum' }),
        threshold: OVERVIEW_FEED_LAG_ALARM.toMilliseconds(),
        description: "The overview feed is behind the table's stream: today's overview lags by as much",
      },
      props.alarmTopic,
    );
    alarmAtOrAbove(
      this,
      'DeadLettersAlarm',
      {
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Max' }),
        description:
          'The overview feed gave a batch up: its decisions are missing from the overview until the nightly rollup',
      },
      props.alarmTopic,
    );
  }
}
