import { CfnOutput, Duration, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { ApiFunction } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import type { ExportsBucketRef } from './privacy-stack.ts';
import { privateBucket } from './private-bucket.ts';
import { IMPORT_JOB_ACCESS } from './table-access.ts';

/** The import function's entry, relative to the repository root. */
export const IMPORT_HANDLER_FILE = 'functions/history-import.ts';

/** History files are a hand-over, not a record: the bucket forgets them after this. */
export const IMPORT_FILE_EXPIRY = Duration.days(30);

export interface ImportStackProps extends StackProps {
  config: StageConfig;
  table: ITable;
}

/**
 * History import in AWS: a private bucket for merchants' NDJSON history files (`<merchantId>/...`)
 * and one function that imports one of them on demand (`aws lambda invoke` with `{ merchantId,
 * key }`), the code `admin import` runs. Its role may read the bucket's objects and send the table
 * actions of the event use cases, nothing else.
 */
export class ImportStack extends Stack {
  readonly bucket: Bucket;
  readonly function: ApiFunction;
  /** The bucket for the privacy worker, whose offboarding deletes a leaving merchant's files. */
  readonly forPrivacyWorker: ExportsBucketRef;

  constructor(scope: Construct, id: string, props: ImportStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.bucket = privateBucket(this, 'Imports', {
      retain: config.protectData,
      lifecycleRules: [
        { expiration: IMPORT_FILE_EXPIRY, abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    const arnExportName = `${this.stackName}:ImportsBucketArn`;
    this.forPrivacyWorker = {
      bucketName: this.bucket.bucketName,
      bucketArn: this.exportValue(this.bucket.bucketArn, { name: arnExportName }),
      arnExportName,
    };
    this.function = new ApiFunction(this, 'ImportFunction', {
      name: 'historyImport',
      handlerFile: IMPORT_HANDLER_FILE,
      description: "Imports a merchant's history file from the imports bucket (on demand)",
      environment: {
        ...commonEnvironment(config),
        IMPORT_BUCKET: this.bucket.bucketName,
      },
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      // Lambda's limit: the job stops starting events a minute before it and says where to resume.
      timeout: Duration.minutes(15),
      // The file is read whole and parsed in memory (docs/operations.md, History import).
      memorySize: 3008,
    });
    this.function.bindTable(props.table, IMPORT_JOB_ACCESS);
    // Imported events are digested as live ones are, under the merchant's key.
    this.function.readDigestKeys(config.stage);
    this.function.role.addToPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: [this.bucket.arnForObjects('*')] }),
    );

    const bucketId = this.getLogicalId(this.bucket.node.defaultChild as CfnBucket);
    Validations.of(this.function.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
      reason:
        's3:GetObject on the objects of the imports bucket (any key: the job takes the key it is given, ' +
        "and checks it is under the merchant's prefix); no other bucket, no listing, no writing.",
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Operators upload history files and the import function reads them, both through IAM-authorised ' +
        'calls CloudTrail records; objects expire after 30 days, so server access logs would add nothing.',
    });

    new CfnOutput(this, 'ImportBucketName', {
      value: this.bucket.bucketName,
      description: 'Upload history files here as <merchantId>/<name>.ndjson',
    });
    new CfnOutput(this, 'ImportFunctionName', {
      value: this.function.handler.functionName,
      description: 'Invoke with {"merchantId": "...", "key": "<merchantId>/<name>.ndjson"} to import it',
    });
  }
}
