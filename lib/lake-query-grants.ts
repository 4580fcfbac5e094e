import { Aws, type CfnElement, Stack } from 'aws-cdk-lib';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import type { LakeTableName } from '../shared/lake/lake-tables.ts';

export interface LakeForQueries {
  bucket: IBucket;
  workBucket: IBucket;
  database: string;
  workGroup: string;
}

/**
 * What a function running lake queries on Athena needs, and no more: the workgroup (results read
 * back only with `readsResults`; an UNLOAD's are files), the catalog entries and objects of the tables
 * it names, and the work bucket's `athena/` prefix, where Athena reads and writes with the caller's
 * rights. Answers cdk-nag's wildcard findings these grants raise, with their reasons.
 */
export function grantLakeQueries(
  role: IRole,
  lake: LakeForQueries,
  tables: readonly LakeTableName[],
  { readsResults, purpose }: { readsResults: boolean; purpose: string },
): [finding: string, reason: string][] {
  const allow = (actions: string[], resources: string[]) =>
    role.addToPrincipalPolicy(new PolicyStatement({ actions, resources }));
  const region = `arn:${Aws.PARTITION}:athena:${Aws.REGION}:${Aws.ACCOUNT_ID}`;
  allow(
    [
      'athena:StartQueryExecution',
      'athena:GetQueryExecution',
      ...(readsResults ? ['athena:GetQueryResults'] : []),
    ],
    [`${region}:workgroup/${lake.workGroup}`],
  );
  const glue = `arn:${Aws.PARTITION}:glue:${Aws.REGION}:${Aws.ACCOUNT_ID}`;
  allow(
    ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartitions'],
    [
      `${glue}:catalog`,
      `${glue}:database/${lake.database}`,
      ...tables.map((table) => `${glue}:table/${lake.database}/${table}`),
    ],
  );
  allow(
    ['s3:GetObject'],
    tables.map((table) => lake.bucket.arnForObjects(`${table}/*`)),
  );
  allow(['s3:ListBucket', 's3:GetBucketLocation'], [lake.bucket.bucketArn, lake.workBucket.bucketArn]);
  allow(
    ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload'],
    [lake.workBucket.arnForObjects('athena/*')],
  );

  const stack = Stack.of(role);
  const arn = (construct: IConstruct) =>
    `<${stack.getLogicalId(construct.node.defaultChild as CfnElement)}.Arn>`;
  return [
    ...tables.map((table): [string, string] => [
      `Resource::${arn(lake.bucket)}/${table}/*`,
      `Athena reads the ${table} objects, with the caller's rights, for the merchant and days a query names`,
    ]),
    [
      `Resource::${arn(lake.workBucket)}/athena/*`,
      `Athena's results of the ${purpose} queries, with the caller's rights`,
    ],
  ];
}
