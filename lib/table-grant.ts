import { Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { TableAccess } from './table-access.ts';

/** KMS actions DynamoDB needs from a caller on a table encrypted with a customer-managed key. */
const KEY_READ_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey'];
const KEY_WRITE_ACTIONS = ['kms:Encrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'];
const WRITE_ACTIONS = new Set<string>(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']);

/**
 * Grants `role` exactly the listed actions on the table: one statement on the table's ARN (with
 * `dynamodb:LeadingKeys` when the access names partitions), plus the queried indexes' ARNs when
 * there are any, plus the table key's use when it is customer-managed.
 */
export function grantTableAccess(role: IRole, table: ITable, access: TableAccess): void {
  if (access.actions.length === 0) return;
  role.addToPrincipalPolicy(
    new PolicyStatement({
      actions: [...access.actions],
      resources: [table.tableArn],
      ...(access.leadingKeys
        ? { conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...access.leadingKeys] } } }
        : {}),
    }),
  );
  if (access.queriedIndexes.length > 0) {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: access.queriedIndexes.map((name) => `${table.tableArn}/index/${name}`),
      }),
    );
  }
  if (!table.encryptionKey) return;
  const writes = access.actions.some((action) => WRITE_ACTIONS.has(action));
  table.encryptionKey.grant(role, ...KEY_READ_ACTIONS, ...(writes ? KEY_WRITE_ACTIONS : []));
  if (writes) {
    const reason =
      "Writes to a table under a customer-managed key: DynamoDB calls KMS on the caller's behalf " +
      '(GenerateDataKey / GenerateDataKeyWithoutPlaintext, ReEncryptFrom / ReEncryptTo). These are ' +
      "CDK's standard table-key write actions, granted on this one key's ARN only.";
    Validations.of(role).acknowledge(
      { id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]', reason },
      { id: 'AwsSolutions-IAM5[Action::kms:ReEncrypt*]', reason },
    );
  }
}
