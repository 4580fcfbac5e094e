import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { StageConfig } from './config.ts';
import { DecisionTable } from './decision-table.ts';

export interface DataStackProps extends StackProps {
  config: StageConfig;
}

/**
 * The stateful part of one environment: the table (and its key). Kept apart from the API so the
 * stateless stack can be replaced, renamed or destroyed without touching data.
 */
export class DataStack extends Stack {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    this.table = new DecisionTable(this, 'DecisionTable', {
      encryption: props.config.tableEncryption,
      protectData: props.config.protectData,
      capacity: props.config.tableCapacity,
    }).table;

    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: `TABLE_NAME for the admin CLI (ENVIRONMENT=${props.config.stage})`,
    });
  }
}
