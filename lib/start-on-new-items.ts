import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IStream } from 'aws-cdk-lib/aws-kinesis';
import { CfnPipe } from 'aws-cdk-lib/aws-pipes';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';

/** Where the inserted item's attributes are in a change the pipe reads. */
export const NEW_IMAGE = '$.data.dynamodb.NewImage';

/**
 * An EventBridge pipe: each item of `entity` inserted in the table (read from its changes stream)
 * starts an execution, whose input `inputTemplate` builds from the item (NEW_IMAGE). Nothing in the
 * request's path but the item.
 */
export function startOnNewItems(
  scope: Construct,
  id: string,
  props: {
    changes: IStream;
    stateMachine: IStateMachine;
    entity: string;
    what: string;
    inputTemplate: string;
  },
): void {
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('pipes.amazonaws.com'),
    description: `Reads the table changes stream and starts the ${props.what} state machine, nothing else`,
  });
  props.changes.grantRead(role);
  props.stateMachine.grantStartExecution(role);
  new CfnPipe(scope, id, {
    description: `Starts the ${props.what} state machine for each new ${props.what} item`,
    roleArn: role.roleArn,
    source: props.changes.streamArn,
    sourceParameters: {
      kinesisStreamParameters: { startingPosition: 'LATEST', batchSize: 1, maximumRetryAttempts: 10 },
      filterCriteria: {
        filters: [
          {
            pattern: JSON.stringify({
              data: { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: [props.entity] } } } },
            }),
          },
        ],
      },
    },
    target: props.stateMachine.stateMachineArn,
    targetParameters: {
      stepFunctionStateMachineParameters: { invocationType: 'FIRE_AND_FORGET' },
      inputTemplate: props.inputTemplate,
    },
  });
}
