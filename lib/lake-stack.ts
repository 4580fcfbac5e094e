import { Aws, CfnOutput, Duration, Fn, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { CfnWorkGroup } from 'aws-cdk-lib/aws-athena';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { CfnDatabase, CfnTable } from 'aws-cdk-lib/aws-glue';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IStream } from 'aws-cdk-lib/aws-kinesis';
import { CfnDeliveryStream } from 'aws-cdk-lib/aws-kinesisfirehose';
import { type Bucket, Bucket as BucketConstruct, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { ERASURE_STAGING_PREFIX } from '../shared/lake/lake-erasure.ts';
import {
  LAKE_PARTITION_COLUMNS,
  LAKE_TABLE_NAMES,
  LAKE_TABLES,
  type LakeTableName,
} from '../shared/lake/lake-tables.ts';
import { DEFAULT_RETENTION_DAYS } from '../shared/retention.ts';
import { EXPIRED_KEPT_SECONDS } from '../shared/store/list-entries.ts';
import { ApiFunction } from './api-function.ts';
import { BacktestJob } from './backtest-job.ts';
import { removalPolicyFor, type StageConfig } from './config.ts';
import { JobStarts } from './job-starts.ts';
import { LakeExportJob } from './lake-export-job.ts';
import { LearningJob } from './learning-stack.ts';
import { OverviewFeed } from './overview-feed.ts';
import { bucketRef, privateBucket } from './private-bucket.ts';

/** The transform's entry, relative to the repository root. */
export const LAKE_TRANSFORM_HANDLER_FILE = 'functions/lake-transform.ts';
/**
 * Firehose delivers a partition's file when 128 MB or 15 minutes are reached, whichever first
 * (docs/lake.md, Freshness): the largest files and fewest objects Firehose allows.
 */
export const LAKE_BUFFER = { sizeInMBs: 128, intervalInSeconds: 900 } as const;
const DAY_S = 86_400;
/**
 * How long the lake keeps each kind, never longer than the table keeps its items: a file is made up
 * to a buffer after its items, so a day less than the table's TTL. List entries: the table keeps an
 * expired entry 30 days after its expiry, so 30 days is the least it keeps any; the lake keeps no more.
 */
export const LAKE_EXPIRY_DAYS = {
  'decided_events/kind=login/': DEFAULT_RETENTION_DAYS.events - 1,
  'decided_events/kind=account/': DEFAULT_RETENTION_DAYS.events - 1,
  'list_changes/': EXPIRED_KEPT_SECONDS / DAY_S,
  'errors/': 14,
  // An erasure's rewrite stages its kept rows here (shared/lake/athena-lake-erasure.ts) for minutes;
  // what a failed one leaves goes within a day.
  [ERASURE_STAGING_PREFIX]: 1,
} as const;
/** Athena's answers are read by the job that asked, then forgotten. */
export const QUERY_RESULT_EXPIRY_DAYS = 7;

/**
 * The lake as another stack is handed it: its buckets' ARNs under export names of this stack's
 * choosing (CDK's own are hashes, and cdk-nag's acknowledgements name them), its Glue database and
 * Athena workgroup.
 */
export interface LakeRef {
  bucketName: string;
  bucketArn: string;
  arnExportName: string;
  resultsBucketArn: string;
  resultsArnExportName: string;
  database: string;
  workGroup: string;
}

export interface LakeStackProps extends StackProps {
  config: StageConfig;
  /** The table's changes (Kinesis Data Streams for DynamoDB, lib/decision-table.ts). */
  changes: IStream;
  /** Where a stalled delivery, a failing transform or a failed learning item is reported. */
  alarmTopic: ITopic;
  /** The table the learning job reads merchants from and writes model versions to. */
  table: ITable;
  /**
   * The name of the API stack's export of its exports bucket's ARN: where bulk exports write their
   * files (the API signs their links).
   */
  exportsBucketArnExport: string;
}

/** Glue's column type for a lake column. */
const GLUE_TYPES = {
  string: 'string',
  bigint: 'bigint',
  int: 'int',
  double: 'double',
  'array<string>': 'array<string>',
} as const;

/**
 * The lake of one environment (docs/lake.md): the table's changes, read from Kinesis by one Firehose
 * delivery stream per lake table, turned into that table's rows by a transform function
 * (shared/lake/firehose-transform.ts), converted to Parquet against the Glue table and written under
 * `<table>/kind=/merchant_id=/day=/` (dynamic partitioning). The Glue tables find partitions by
 * projection (no crawler), the merchant being injected: every query names one. Athena queries it in
 * this environment's workgroup, which caps the bytes one query scans and encrypts its results.
 */
export class LakeStack extends Stack {
  readonly bucket: Bucket;
  readonly resultsBucket: Bucket;
  readonly database: CfnDatabase;
  readonly tables: Record<LakeTableName, CfnTable>;
  readonly workGroup: CfnWorkGroup;
  readonly databaseName: string;
  readonly workGroupName: string;
  readonly deliveryStreams: Record<LakeTableName, CfnDeliveryStream>;
  /** Nightly learning on the lake (lib/learning-stack.ts). */
  readonly learning: LearningJob;
  /** Bulk exports from the lake (lib/lake-export-job.ts). */
  readonly exports: LakeExportJob;
  readonly backtests: BacktestJob;
  /** The export and backtest jobs' one reader of the table's changes, a rule per job. */
  readonly jobStarts: JobStarts;
  /** The console overview's day counters, fed from the table's changes. */
  readonly overviewFeed: OverviewFeed;
  /** What the privacy worker, in a stack of its own, needs of the lake to erase a customer's rows. */
  readonly forPrivacyWorker: LakeRef;

  constructor(scope: Construct, id: string, props: LakeStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.bucket = privateBucket(this, 'Lake', {
      retain: config.protectData,
      lifecycleRules: [
        ...Object.entries(LAKE_EXPIRY_DAYS).map(([prefix, days]) => ({
          prefix,
          expiration: Duration.days(days),
        })),
        { abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    this.resultsBucket = privateBucket(this, 'QueryResults', {
      retain: false,
      lifecycleRules: [
        {
          expiration: Duration.days(QUERY_RESULT_EXPIRY_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });
    for (const bucket of [this.bucket, this.resultsBucket])
      Validations.of(bucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'Only Firehose, Athena and the learning functions read or write it, through IAM-authorised calls ' +
          'CloudTrail records; server access logs would repeat them.',
      });

    const databaseName = `abuse_decision_${config.stage}_lake`;
    this.databaseName = databaseName;
    this.workGroupName = `abuse-decision-${config.stage}-lake`;
    this.database = new CfnDatabase(this, 'Database', {
      catalogId: Aws.ACCOUNT_ID,
      databaseInput: {
        name: databaseName,
        description: `Decided events, feedback and list changes of ${config.stage} (digests only)`,
      },
    });
    this.tables = Object.fromEntries(
      LAKE_TABLE_NAMES.map((name) => [name, this.glueTable(name, databaseName)]),
    ) as Record<LakeTableName, CfnTable>;

    this.workGroup = new CfnWorkGroup(this, 'WorkGroup', {
      name: this.workGroupName,
      description: `Queries of the ${config.stage} lake: learning, analytics, exports`,
      recursiveDeleteOption: !config.protectData,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: config.lake.bytesScannedCutoffPerQuery,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: this.resultsBucket.s3UrlForObject('athena/'),
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });

    this.deliveryStreams = Object.fromEntries(
      LAKE_TABLE_NAMES.map((name) => [name, this.deliveryStream(name, props, databaseName)]),
    ) as Record<LakeTableName, CfnDeliveryStream>;

    // What the jobs' queries run on: the lake's tables, Athena's results, the catalog, the workgroup.
    const queried = {
      bucket: this.bucket,
      workBucket: this.resultsBucket,
      database: databaseName,
      workGroup: this.workGroupName,
    };
    this.learning = new LearningJob(this, 'Learning', {
      config,
      table: props.table,
      lake: queried,
      alarmTopic: props.alarmTopic,
    });

    this.jobStarts = new JobStarts(this, 'JobStarts', {
      config,
      changes: props.changes,
      alarmTopic: props.alarmTopic,
    });
    this.exports = new LakeExportJob(this, 'Export', {
      config,
      table: props.table,
      starts: this.jobStarts,
      lake: queried,
      exportsBucket: {
        bucket: BucketConstruct.fromBucketArn(
          this,
          'ExportsBucket',
          Fn.importValue(props.exportsBucketArnExport),
        ),
        arnExport: props.exportsBucketArnExport,
      },
      alarmTopic: props.alarmTopic,
    });

    this.overviewFeed = new OverviewFeed(this, 'Overview', {
      config,
      table: props.table,
      changes: props.changes,
      alarmTopic: props.alarmTopic,
    });

    this.backtests = new BacktestJob(this, 'Backtests', {
      config,
      table: props.table,
      starts: this.jobStarts,
      lake: queried,
      alarmTopic: props.alarmTopic,
    });

    const results = bucketRef(this, this.resultsBucket, 'QueryResultsBucketArn');
    this.forPrivacyWorker = {
      ...bucketRef(this, this.bucket, 'LakeBucketArn'),
      resultsBucketArn: results.bucketArn,
      resultsArnExportName: results.arnExportName,
      database: databaseName,
      workGroup: this.workGroupName,
    };

    new CfnOutput(this, 'LakeBucketName', { value: this.bucket.bucketName });
    new CfnOutput(this, 'LakeDatabaseName', { value: databaseName });
    new CfnOutput(this, 'LakeWorkGroupName', { value: this.workGroup.name });
  }

  /** A Glue table over `<name>/`, its partitions found by projection from the key layout. */
  private glueTable(name: LakeTableName, databaseName: string): CfnTable {
    const definition = LAKE_TABLES[name];
    const location = `s3://${this.bucket.bucketName}/${name}/`;
    const table = new CfnTable(this, `Table_${name}`, {
      catalogId: Aws.ACCOUNT_ID,
      databaseName,
      tableInput: {
        name,
        description: definition.description,
        tableType: 'EXTERNAL_TABLE',
        partitionKeys: LAKE_PARTITION_COLUMNS.map((column) => ({ name: column, type: 'string' })),
        parameters: {
          classification: 'parquet',
          'projection.enabled': 'true',
          'projection.kind.type': 'enum',
          'projection.kind.values': definition.kinds.join(','),
          // One merchant per query: a merchant partition is named, never listed.
          'projection.merchant_id.type': 'injected',
          'projection.day.type': 'date',
          'projection.day.format': 'yyyy-MM-dd',
          'projection.day.range': '2020-01-01,NOW',
          'projection.day.interval': '1',
          'projection.day.interval.unit': 'DAYS',
          'storage.location.template': `${location}kind=\${kind}/merchant_id=\${merchant_id}/day=\${day}/`,
        },
        storageDescriptor: {
          location,
          columns: definition.columns.map((c) => ({
            name: c.name,
            type: GLUE_TYPES[c.type],
            comment: c.comment,
          })),
          inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
          serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
        },
      },
    });
    table.addDependency(this.database);
    return table;
  }

  /**
   * The delivery stream of one lake table: the table's changes from Kinesis, the transform keeping
   * this table's rows, Parquet against the Glue table, one prefix per partition. Its role reads the
   * stream, invokes its transform, reads its Glue table and writes under its own prefixes, nothing more.
   */
  private deliveryStream(
    name: LakeTableName,
    props: LakeStackProps,
    databaseName: string,
  ): CfnDeliveryStream {
    const { config } = props;
    const transform = new ApiFunction(this, `Transform_${name}`, {
      name: 'lakeTransform',
      handlerFile: LAKE_TRANSFORM_HANDLER_FILE,
      description: `Turns table changes into ${name} rows for the lake (Firehose transform)`,
      environment: { ENVIRONMENT: config.stage, POWERTOOLS_LOG_LEVEL: config.logLevel, LAKE_TABLE: name },
      logRetention: config.logRetention,
      logRemovalPolicy: removalPolicyFor(config.protectData),
      timeout: Duration.minutes(1),
      memorySize: 512,
    });
    const role = new Role(this, `Delivery_${name}Role`, {
      assumedBy: new ServicePrincipal('firehose.amazonaws.com'),
      description: `Delivers the ${name} rows of the table's changes to the lake`,
    });
    props.changes.grantRead(role);
    role.addToPolicy(
      new PolicyStatement({
        actions: ['lambda:InvokeFunction', 'lambda:GetFunctionConfiguration'],
        resources: [transform.handler.functionArn, `${transform.handler.functionArn}:*`],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ['glue:GetTable', 'glue:GetTableVersion', 'glue:GetTableVersions'],
        resources: [
          `arn:${Aws.PARTITION}:glue:${Aws.REGION}:${Aws.ACCOUNT_ID}:catalog`,
          `arn:${Aws.PARTITION}:glue:${Aws.REGION}:${Aws.ACCOUNT_ID}:database/${databaseName}`,
          `arn:${Aws.PARTITION}:glue:${Aws.REGION}:${Aws.ACCOUNT_ID}:table/${databaseName}/${name}`,
        ],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:AbortMultipartUpload', 's3:PutObject'],
        resources: [this.bucket.arnForObjects(`${name}/*`), this.bucket.arnForObjects(`errors/${name}/*`)],
      }),
    );
    role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'],
        resources: [this.bucket.bucketArn],
      }),
    );
    const bucketId = this.getLogicalId(this.bucket.node.defaultChild as CfnBucket);
    const functionId = this.getLogicalId(transform.handler.node.defaultChild as CfnTable);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${name}/*]`,
      reason: `Writes new objects under its own table's prefix (${name}/), whose keys name the partition`,
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/errors/${name}/*]`,
      reason: `Writes the records it could not deliver under its own error prefix (errors/${name}/)`,
    });
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
      reason: 'Invokes its own transform function and its qualified ARNs, as Firehose calls it',
    });
    const stream = new CfnDeliveryStream(this, `Delivery_${name}`, {
      deliveryStreamType: 'KinesisStreamAsSource',
      kinesisStreamSourceConfiguration: { kinesisStreamArn: props.changes.streamArn, roleArn: role.roleArn },
      extendedS3DestinationConfiguration: {
        bucketArn: this.bucket.bucketArn,
        roleArn: role.roleArn,
        prefix: `${name}/kind=!{partitionKeyFromLambda:kind}/merchant_id=!{partitionKeyFromLambda:merchant_id}/day=!{partitionKeyFromLambda:day}/`,
        errorOutputPrefix: `errors/${name}/!{firehose:error-output-type}/!{timestamp:yyyy-MM-dd}/`,
        bufferingHints: LAKE_BUFFER,
        compressionFormat: 'UNCOMPRESSED',
        dynamicPartitioningConfiguration: { enabled: true, retryOptions: { durationInSeconds: 300 } },
        processingConfiguration: {
          enabled: true,
          processors: [
            {
              type: 'Lambda',
              parameters: [
                { parameterName: 'LambdaArn', parameterValue: transform.handler.functionArn },
                { parameterName: 'NumberOfRetries', parameterValue: '3' },
                { parameterName: 'BufferSizeInMBs', parameterValue: '1' },
                { parameterName: 'BufferIntervalInSeconds', parameterValue: '60' },
              ],
            },
          ],
        },
        dataFormatConversionConfiguration: {
          enabled: true,
          inputFormatConfiguration: { deserializer: { openXJsonSerDe: {} } },
          outputFormatConfiguration: { serializer: { parquetSerDe: { compression: 'SNAPPY' } } },
          schemaConfiguration: {
            catalogId: Aws.ACCOUNT_ID,
            databaseName,
            tableName: name,
            region: Aws.REGION,
            roleArn: role.roleArn,
            versionId: 'LATEST',
          },
        },
      },
    });
    Validations.of(stream).acknowledge({
      id: 'AwsSolutions-KDF1',
      reason:
        'Firehose takes server-side encryption only on Direct PUT streams; this one reads the table changes ' +
        'Kinesis stream, encrypted with KMS, and writes to the lake bucket, encrypted at rest.',
    });
    stream.node.addDependency(role);
    stream.addDependency(this.tables[name]);

    const alarmAction = new SnsAction(props.alarmTopic);
    const freshness = new Alarm(this, `Stale_${name}`, {
      alarmDescription: `The lake's ${name} is more than an hour behind the table (${config.stage}): docs/operations.md`,
      metric: new Metric({
        namespace: 'AWS/Firehose',
        metricName: 'DeliveryToS3.DataFreshness',
        dimensionsMap: { DeliveryStreamName: stream.ref },
        statistic: 'Maximum',
        period: Duration.minutes(15),
      }),
      threshold: 3600,
      evaluationPeriods: 2,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    freshness.addAlarmAction(alarmAction);
    const failing = new Alarm(this, `TransformErrors_${name}`, {
      alarmDescription: `The lake's ${name} transform fails (${config.stage}): its records go to errors/${name}/`,
      metric: transform.handler.metricErrors({ period: Duration.minutes(15) }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    failing.addAlarmAction(alarmAction);
    return stream;
  }
}
