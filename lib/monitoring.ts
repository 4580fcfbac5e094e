import { Duration } from 'aws-cdk-lib';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { EVENT_TYPES, type EventType } from '../shared/contract/endpoints.ts';
import { DECISION_OUTCOMES, type DecisionOutcome } from '../shared/schemas/decision.ts';
import { METRICS_NAMESPACE, POWERTOOLS_SERVICE_NAME } from './api-function.ts';
import type { StageConfig } from './config.ts';

/** The operations our functions and the admin CLI send; CloudWatch alarms take at most 10 metrics. */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
  Operation.QUERY,
];

const PERIOD = Duration.minutes(5);

export interface MonitoredFunction {
  /** Endpoint name, or `fallback`. */
  name: string;
  handler: IFunction;
}

export interface MonitoringProps {
  config: StageConfig;
  stage: Stage;
  table: Table;
  functions: readonly MonitoredFunction[];
}

/**
 * Alarms to one SNS topic (e-mailed when configured) and a dashboard: decisions by event type and
 * outcome, API traffic and latency, function latency, errors and throttles, table health.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { config, stage, table, functions } = props;

    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `Abuse-decision API ${config.stage} alarms`,
      enforceSSL: true,
    });
    if (config.alarmEmail) this.topic.addSubscription(new EmailSubscription(config.alarmEmail));

    const requests = stage.metricCount({ period: PERIOD, statistic: 'Sum' });
    const serverErrors = stage.metricServerError({ period: PERIOD, statistic: 'Sum' });
    // Below 20 requests in five minutes a single failure is noise, not a rate.
    const serverErrorRate = new MathExpression({
      expression: 'IF(requests >= 20, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      period: PERIOD,
      label: '5xx rate (%)',
    });
    this.alarm('ServerErrorRate', serverErrorRate, {
      threshold: config.alarms.serverErrorRatePercent,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `More than ${config.alarms.serverErrorRatePercent}% of API requests answered 5xx.`,
    });

    for (const fn of functions) {
      this.alarm(`${fn.name}P99Latency`, fn.handler.metricDuration({ period: PERIOD, statistic: 'p99' }), {
        threshold: config.alarms.p99LatencyMs,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        description: `p99 duration of the ${fn.name} function above ${config.alarms.p99LatencyMs} ms.`,
      });
      this.alarm(`${fn.name}Errors`, fn.handler.metricErrors({ period: PERIOD, statistic: 'Sum' }), {
        threshold: 1,
        evaluationPeriods: 1,
        description: `The ${fn.name} function failed (crash or timeout; handled errors are answered, not thrown).`,
      });
      this.alarm(`${fn.name}Throttles`, fn.handler.metricThrottles({ period: PERIOD, statistic: 'Sum' }), {
        threshold: 1,
        evaluationPeriods: 1,
        description: `Lambda throttled the ${fn.name} function (account or reserved concurrency exhausted).`,
      });
    }

    const tableSystemErrors = table.metricSystemErrorsForOperations({
      operations: TABLE_OPERATIONS,
      period: PERIOD,
    });
    const tableThrottles = table.metricThrottledRequestsForOperations({
      operations: TABLE_OPERATIONS,
      period: PERIOD,
    });
    this.alarm('TableSystemErrors', tableSystemErrors, {
      threshold: 1,
      evaluationPeriods: 1,
      description: 'DynamoDB answered requests on the table with system errors (HTTP 500).',
    });
    this.alarm('TableThrottledRequests', tableThrottles, {
      threshold: 1,
      evaluationPeriods: 1,
      description: 'DynamoDB throttled requests on the table.',
    });

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(6) });
    this.dashboard.addWidgets(
      // Event types that produce a decision (the registry's; dispositions and disputes only report).
      ...EVENT_TYPES.map(
        (eventType) =>
          new GraphWidget({
            title: `Decisions: ${eventType}`,
            stacked: true,
            width: 8,
            left: DECISION_OUTCOMES.map((outcome) => decisionsMetric(eventType, outcome)),
          }),
      ),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests and errors',
        width: 12,
        left: [requests, serverErrors, stage.metricClientError({ period: PERIOD, statistic: 'Sum' })],
        right: [serverErrorRate],
      }),
      new GraphWidget({
        title: 'API latency (ms)',
        width: 12,
        left: [
          stage.metricLatency({ period: PERIOD, statistic: 'p50' }),
          stage.metricLatency({ period: PERIOD, statistic: 'p99' }),
          stage.metricIntegrationLatency({ period: PERIOD, statistic: 'p99' }),
        ],
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Function duration p99 (ms)',
        width: 12,
        left: functions.map((fn) =>
          fn.handler.metricDuration({ period: PERIOD, statistic: 'p99', label: fn.name }),
        ),
      }),
      new GraphWidget({
        title: 'Function errors and throttles',
        width: 12,
        left: functions.map((fn) =>
          fn.handler.metricErrors({ period: PERIOD, statistic: 'Sum', label: `${fn.name} errors` }),
        ),
        right: functions.map((fn) =>
          fn.handler.metricThrottles({ period: PERIOD, statistic: 'Sum', label: `${fn.name} throttles` }),
        ),
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Table capacity consumed',
        width: 8,
        left: [
          table.metricConsumedReadCapacityUnits({ period: PERIOD, statistic: 'Sum' }),
          table.metricConsumedWriteCapacityUnits({ period: PERIOD, statistic: 'Sum' }),
        ],
      }),
      // One expression per graph: both sum per-operation metrics with the same ids.
      new GraphWidget({ title: 'Table system errors', width: 8, left: [tableSystemErrors] }),
      new GraphWidget({ title: 'Table throttled requests', width: 8, left: [tableThrottles] }),
    );
  }

  private alarm(
    id: string,
    metric: IMetric,
    props: { threshold: number; evaluationPeriods: number; datapointsToAlarm?: number; description: string },
  ): void {
    const alarm = new Alarm(this, id, {
      metric,
      threshold: props.threshold,
      evaluationPeriods: props.evaluationPeriods,
      ...(props.datapointsToAlarm !== undefined ? { datapointsToAlarm: props.datapointsToAlarm } : {}),
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
      alarmDescription: props.description,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    alarm.addOkAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
  }
}

/** The Powertools metric shared/observability-decisions.ts emits: one per decision. */
function decisionsMetric(eventType: EventType, outcome: DecisionOutcome): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: 'Decisions',
    dimensionsMap: { service: POWERTOOLS_SERVICE_NAME, eventType, outcome },
    statistic: 'Sum',
    period: PERIOD,
    label: outcome,
  });
}

/** An alarm to `topic` on any failed execution of a job's state machine within `period`. */
export function alarmOnFailedExecutions(
  scope: Construct,
  id: string,
  job: { stateMachine: IStateMachine; period: Duration; description: string },
  topic: ITopic,
): void {
  alarmAtOrAbove(
    scope,
    id,
    { metric: job.stateMachine.metricFailed({ period: job.period }), description: job.description },
    topic,
  );
}

/**
 * An alarm to `topic` when one period of `metric` reaches `threshold` (by default 1: any at all);
 * no data is no alarm.
 */
export function alarmAtOrAbove(
  scope: Construct,
  id: string,
  { metric, threshold = 1, description }: { metric: IMetric; threshold?: number; description: string },
  topic: ITopic,
): void {
  new Alarm(scope, id, {
    alarmDescription: description,
    metric,
    threshold,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  }).addAlarmAction(new SnsAction(topic));
}
