import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Schedule, ScheduleExpression, ScheduleTargetInput } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { ApiFunction } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { TABLE_ACCESS } from './table-access.ts';

/** The training function's entry, relative to the repository root. */
export const TRAINING_HANDLER_FILE = 'functions/train-models.ts';
/** When the nightly run starts (UTC): after most merchants' daily dispute and disposition uploads. */
export const NIGHTLY_TRAINING_CRON = { minute: '0', hour: '3' } as const;

export interface TrainingJobProps {
  config: StageConfig;
  table: ITable;
  /** Where a failed nightly run is reported (the API's alarm topic). */
  alarmTopic: ITopic;
}

/**
 * Model training in AWS: one function per environment (functions/train-models.ts, the same use case
 * as `models train`), invoked nightly by EventBridge Scheduler for every merchant and on demand for
 * one (`aws lambda invoke --payload '{"merchantId":"..."}'`). It reads a merchant's decided events
 * of the last 180 days and its feedback, and writes candidate versions (promoted only under the
 * merchant's auto-promotion setting and the promotion rule). Its role may only read what training
 * reads and put versions and pointers; the schedule's role may only invoke this function.
 */
export class TrainingJob extends Construct {
  readonly function: ApiFunction;
  readonly schedule: Schedule;

  constructor(scope: Construct, id: string, props: TrainingJobProps) {
    super(scope, id);
    const { config } = props;
    this.function = new ApiFunction(this, 'TrainFunction', {
      name: 'training',
      handlerFile: TRAINING_HANDLER_FILE,
      description: 'Trains merchant models from their feedback (nightly and on demand)',
      environment: commonEnvironment(config),
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      // Reading and fitting 100,000 rows per event type takes seconds; many merchants take minutes.
      timeout: Duration.minutes(15),
      memorySize: 3008,
    });
    this.function.bindTable(props.table, TABLE_ACCESS.training);

    const scheduleRole = new Role(this, 'ScheduleRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: 'Lets the nightly schedule invoke the training function, nothing else',
    });
    this.schedule = new Schedule(this, 'Nightly', {
      description: `Nightly model training for every merchant (${config.stage})`,
      schedule: ScheduleExpression.cron(NIGHTLY_TRAINING_CRON),
      target: new LambdaInvoke(this.function.handler, {
        input: ScheduleTargetInput.fromObject({}),
        // A failed night is retried by the next one; a retry storm would only repeat the same work.
        retryAttempts: 0,
        role: scheduleRole,
      }),
    });
    Validations.of(scheduleRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.function.handler.node.defaultChild as CfnFunction)}.Arn>:*]`,
      reason:
        'lambda:InvokeFunction on the training function and its qualified ARNs (`<arn>:*`, versions ' +
        "and aliases), as Lambda's grantInvoke writes it; the role can invoke no other function.",
    });

    const failures = new Alarm(this, 'FailedRuns', {
      alarmDescription: `Model training failed (${config.stage}): see the training function's logs`,
      metric: this.function.handler.metricErrors({ period: Duration.days(1) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    failures.addAlarmAction(new SnsAction(props.alarmTopic));
  }
}

export interface LearningStackProps extends StackProps, TrainingJobProps {}

/** The learning part of one environment, apart from the API so it deploys and scales on its own. */
export class LearningStack extends Stack {
  readonly training: TrainingJob;

  constructor(scope: Construct, id: string, props: LearningStackProps) {
    super(scope, id, props);
    this.training = new TrainingJob(this, 'Training', props);
    new CfnOutput(this, 'TrainingFunctionName', {
      value: this.training.function.handler.functionName,
      description: 'Invoke with {"merchantId": "..."} to train one merchant on demand',
    });
  }
}
