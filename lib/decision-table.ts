import { Duration } from 'aws-cdk-lib';
import {
  ApproximateCreationDateTimePrecision,
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Stream, StreamEncryption, StreamMode } from 'aws-cdk-lib/aws-kinesis';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { GLOBAL_INDEXES, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from '../shared/store/table-definition.ts';
import { type CapacityRange, removalPolicyFor, type TableCapacity } from './config.ts';

export interface DecisionTableProps {
  encryption: 'aws-managed' | 'customer-managed';
  /** Deletion protection and RETAIN (table and key). */
  protectData: boolean;
  capacity: TableCapacity;
}

/**
 * The single table, built from the store's own key and index constants
 * (shared/store/table-definition.ts), so code and infrastructure cannot drift. On-demand or
 * auto-scaled provisioned capacity (the environment's choice), point-in-time recovery, encrypted at rest, items expire on the TTL attribute.
 */
export class DecisionTable extends Construct {
  readonly table: Table;
  /**
   * Every change of the table, for the lake (lib/lake-stack.ts): Kinesis Data Streams for DynamoDB,
   * written by DynamoDB itself, so feeding the lake adds nothing to a request's transaction.
   */
  readonly changes: Stream;

  constructor(scope: Construct, id: string, props: DecisionTableProps) {
    super(scope, id);
    const { capacity } = props;
    const removalPolicy = removalPolicyFor(props.protectData);
    const encryptionKey =
      props.encryption === 'customer-managed'
        ? new Key(this, 'Key', {
            description: 'Encrypts the abuse-decision table at rest',
            enableKeyRotation: true,
            removalPolicy,
          })
        : undefined;

    this.changes = new Stream(this, 'Changes', {
      streamMode: StreamMode.ON_DEMAND,
      encryption: StreamEncryption.MANAGED,
      // Firehose reads within minutes; a day covers an outage of the delivery streams.
      retentionPeriod: Duration.hours(24),
      removalPolicy,
    });
    this.table = new Table(this, 'Table', {
      partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: SORT_KEY, type: AttributeType.STRING },
      ...(capacity.mode === 'provisioned'
        ? {
            billingMode: BillingMode.PROVISIONED,
            readCapacity: capacity.table.read.min,
            writeCapacity: capacity.table.write.min,
          }
        : { billingMode: BillingMode.PAY_PER_REQUEST }),
      timeToLiveAttribute: TTL_ATTRIBUTE,
      // New images feed the webhook worker (filtered to outbox items: lib/webhook-worker.ts).
      stream: StreamViewType.NEW_IMAGE,
      kinesisStream: this.changes,
      kinesisPrecisionTimestamp: ApproximateCreationDateTimePrecision.MILLISECOND,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.protectData,
      removalPolicy,
      ...(encryptionKey
        ? { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey }
        : { encryption: TableEncryption.AWS_MANAGED }),
    });
    for (const index of GLOBAL_INDEXES) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
        ...(capacity.mode === 'provisioned'
          ? { readCapacity: capacity.indexes.read.min, writeCapacity: capacity.indexes.write.min }
          : {}),
      });
    }
    if (capacity.mode === 'provisioned') {
      const { targetUtilizationPercent } = capacity;
      const bounds = (range: CapacityRange) => ({ minCapacity: range.min, maxCapacity: range.max });
      const tracked = [
        this.table.autoScaleReadCapacity(bounds(capacity.table.read)),
        this.table.autoScaleWriteCapacity(bounds(capacity.table.write)),
        ...GLOBAL_INDEXES.flatMap((index) => [
          this.table.autoScaleGlobalSecondaryIndexReadCapacity(index.name, bounds(capacity.indexes.read)),
          this.table.autoScaleGlobalSecondaryIndexWriteCapacity(index.name, bounds(capacity.indexes.write)),
        ]),
      ];
      for (const scalable of tracked) scalable.scaleOnUtilization({ targetUtilizationPercent });
    }
  }
}
