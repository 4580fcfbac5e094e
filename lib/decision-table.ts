import { RemovalPolicy } from 'aws-cdk-lib';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { GLOBAL_INDEXES, PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from '../shared/store/table-definition.ts';

export interface DecisionTableProps {
  encryption: 'aws-managed' | 'customer-managed';
  /** Deletion protection and RETAIN (table and key). */
  protectData: boolean;
}

/**
 * The single table, built from the store's own key and index constants
 * (shared/store/table-definition.ts), so code and infrastructure cannot drift. On-demand,
 * point-in-time recovery, encrypted at rest, items expire on the TTL attribute.
 */
export class DecisionTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: DecisionTableProps) {
    super(scope, id);
    const removalPolicy = props.protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const encryptionKey =
      props.encryption === 'customer-managed'
        ? new Key(this, 'Key', {
            description: 'Encrypts the abuse-decision table at rest',
            enableKeyRotation: true,
            removalPolicy,
          })
        : undefined;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: SORT_KEY, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      // New images feed the webhook worker (filtered to outbox items: lib/webhook-worker.ts).
      stream: StreamViewType.NEW_IMAGE,
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
      });
    }
  }
}
