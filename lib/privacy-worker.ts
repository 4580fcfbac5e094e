import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ApiFunction, acknowledgeStreamReading } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { PRIVACY_WORKER_ACCESS } from './table-access.ts';

/** The privacy worker's entry, relative to the repository root. */
export const PRIVACY_WORKER_HANDLER_FILE = 'functions/privacy-worker.ts';

export interface PrivacyWorkerProps {
  config: StageConfig;
  table: ITable;
  /** Where exports are written (the API stack's bucket, whose links the management API signs). */
  exportsBucket: Bucket;
}

/**
 * Runs privacy requests (erase, export) out of the request's path: fed by the table's stream,
 * filtered to privacy requests still pending. Lambda's longest run: a merchant's history is read
 * once per request (docs/privacy.md says where that stops fitting).
 */
export class PrivacyWorker extends Construct {
  readonly worker: ApiFunction;

  constructor(scope: Construct, id: string, props: PrivacyWorkerProps) {
    super(scope, id);
    const { config, table, exportsBucket } = props;
    this.worker = new ApiFunction(this, 'WorkerFunction', {
      name: 'privacyWorker',
      handlerFile: PRIVACY_WORKER_HANDLER_FILE,
      description: 'Runs pending privacy requests (erase, export) from the table stream',
      environment: { ...commonEnvironment(config), EXPORTS_BUCKET: exportsBucket.bucketName },
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      timeout: Duration.minutes(15),
    });
    this.worker.bindTable(table, PRIVACY_WORKER_ACCESS);
    this.worker.role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [exportsBucket.arnForObjects('*/privacy/*')],
      }),
    );
    const bucketId = Stack.of(this).getLogicalId(exportsBucket.node.defaultChild as CfnBucket);
    Validations.of(this.worker.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*/privacy/*]`,
      reason:
        'Writes one export object per request under <merchantId>/privacy/ in the exports bucket; ' +
        'the merchant is only known when the request arrives.',
    });
    this.worker.handler.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 10,
        // The worker finds every pending request itself; the stream only wakes it.
        retryAttempts: 2,
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
  }
}
