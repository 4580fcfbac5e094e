import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The single table's shape. The CDK stack (lib/) and the local harness both build the table from
 * these constants, so code and infrastructure cannot drift.
 */
export const PARTITION_KEY = 'PK';
export const SORT_KEY = 'SK';
export const TTL_ATTRIBUTE = 'expiresAt';

export interface GlobalIndex {
  name: string;
  partitionKey: string;
  sortKey: string;
}

/**
 * GSI1: API keys by key id (revocation), review items by merchant, status and time, and decided
 * events by merchant, event type and time (workflow backtests).
 */
export const GSI1: GlobalIndex = { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' };

export const GLOBAL_INDEXES: readonly GlobalIndex[] = [GSI1];

export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyAttributes = [
    PARTITION_KEY,
    SORT_KEY,
    ...GLOBAL_INDEXES.flatMap((i) => [i.partitionKey, i.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    // Changes feed the lake locally (local/lake-poller.ts), as the table's Kinesis stream does in AWS.
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
      { AttributeName: SORT_KEY, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: GLOBAL_INDEXES.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}
